// FP8 training's compute terms, each against its source: FP8 GEMM throughput against DeepGEMM's
// measurements on H800 (the catalog's Hopper FP8 pair), the output head and the MoE router
// kept in BF16 (DeepSeek-V3 report section 3.3.1), and the cast passes of blockwise scaling
// (sections 3.3.2 and 3.5.2) charged byte for byte, with none under delayed scaling.
#include "compute/computemodel.h"
#include "compute/modelflops.h"
#include "io/scenarioio.h"

#include <QtTest>

#include <cmath>

using namespace archipelago::core;

namespace {

const AcceleratorSpec& h800()
{
    return *builtinCatalog().accelerator("H800-SXM5-80GB");
}

// A GPT-style dense layer: standard attention, GeLU, no TP.
Workload denseLayer()
{
    Workload w;
    w.layers = 1;
    w.hidden = 4096;
    w.heads = 32;
    w.kvHeads = 32;
    w.ffnHidden = 16384;
    w.vocab = 32000;
    w.seqLen = 4096;
    w.globalBatch = 1;
    w.precision = Precision::Fp8;
    return w;
}

} // namespace

class TestFp8 : public QObject
{
    Q_OBJECT
private slots:
    void gemmMatchesDeepGemm_data();
    void gemmMatchesDeepGemm();
    void bf16CatalogUnchanged();
    void outputHeadStaysBf16();
    void routerStaysBf16();
    void blockwiseCastsChargeTheirBytes();
};

// DeepGEMM (github.com/deepseek-ai/DeepGEMM, first release a6d97a1, README "Performance"):
// FP8 GEMMs with 1x128 / 128x128 block scaling on H800 SXM5, the rows with M >= 4096 (training
// shapes; the M = 64 and 128 rows are inference decoding). The catalog's Hopper pair
// (gemm_peak_fp8, gemm_half_dim_fp8) must reproduce every row within 3%.
void TestFp8::gemmMatchesDeepGemm_data()
{
    QTest::addColumn<double>("groups");
    QTest::addColumn<double>("m");
    QTest::addColumn<double>("n");
    QTest::addColumn<double>("k");
    QTest::addColumn<double>("tflops");
    QTest::newRow("4096x2112x7168") << 1.0 << 4096.0 << 2112.0 << 7168.0 << 1058.0;
    QTest::newRow("4096x24576x1536") << 1.0 << 4096.0 << 24576.0 << 1536.0 << 990.0;
    QTest::newRow("4096x32768x512") << 1.0 << 4096.0 << 32768.0 << 512.0 << 590.0;
    QTest::newRow("4096x7168x16384") << 1.0 << 4096.0 << 7168.0 << 16384.0 << 1358.0;
    QTest::newRow("4096x4096x7168") << 1.0 << 4096.0 << 4096.0 << 7168.0 << 1304.0;
    QTest::newRow("4096x7168x2048") << 1.0 << 4096.0 << 7168.0 << 2048.0 << 1025.0;
    QTest::newRow("4 groups 8192x4096x7168") << 4.0 << 8192.0 << 4096.0 << 7168.0 << 1297.0;
    QTest::newRow("4 groups 8192x7168x2048") << 4.0 << 8192.0 << 7168.0 << 2048.0 << 1099.0;
    QTest::newRow("8 groups 4096x4096x7168") << 8.0 << 4096.0 << 4096.0 << 7168.0 << 1288.0;
    QTest::newRow("8 groups 4096x7168x2048") << 8.0 << 4096.0 << 7168.0 << 2048.0 << 1093.0;
}

void TestFp8::gemmMatchesDeepGemm()
{
    QFETCH(double, groups);
    QFETCH(double, m);
    QFETCH(double, n);
    QFETCH(double, k);
    QFETCH(double, tflops);
    const double t = gemmTimeS(m, n, k, groups, h800(), Precision::Fp8);
    const double modelled = 2.0 * m * n * k * groups / t / 1e12;
    QVERIFY2(std::abs(modelled / tflops - 1.0) <= 0.03,
             qPrintable(QString("model %1 TFLOPS, DeepGEMM %2").arg(modelled).arg(tflops)));
}

// The FP8 pair leaves BF16 GEMMs where the BF16 calibration put them.
void TestFp8::bf16CatalogUnchanged()
{
    AcceleratorSpec plain = h800();
    plain.efficiency.gemmPeakEfficiencyFp8 = 0.0;
    plain.efficiency.gemmHalfDimFp8 = -1.0;
    QCOMPARE(gemmTimeS(4096, 7168, 2048, 1, plain, Precision::Bf16),
             gemmTimeS(4096, 7168, 2048, 1, h800(), Precision::Bf16));
    // Unset, FP8 falls back to the BF16 pair at the FP8 peak (twice as fast when compute-bound).
    const double bf16 = gemmTimeS(8192, 8192, 8192, 1, plain, Precision::Bf16);
    const double fp8 = gemmTimeS(8192, 8192, 8192, 1, plain, Precision::Fp8);
    QVERIFY(std::abs(bf16 / fp8 - plain.peakTflopsFp8 / plain.peakTflopsBf16) < 1e-9);
}

// DeepSeek-V3 section 3.3.1 keeps the output head in its original precision; so does
// Megatron-LM with Transformer Engine (its output layer is not a TE module).
void TestFp8::outputHeadStaysBf16()
{
    Workload w = denseLayer();
    Parallelism par;
    const LogitsCompute fp8 = logitsCompute(w, par, h800());
    w.precision = Precision::Bf16;
    const LogitsCompute bf16 = logitsCompute(w, par, h800());
    QCOMPARE(fp8.forwardS, bf16.forwardS);
    QVERIFY(fp8.forwardS > gemmTimeS(4096, 32000, 4096, 1, h800(), Precision::Fp8));
}

// The MoE gating stays BF16 (section 3.3.1): the MoE layer's column-parallel GEMM time is the
// FP8 attention inputs and expert fc1s plus the router at BF16.
void TestFp8::routerStaysBf16()
{
    Workload w = denseLayer();
    w.activation = FfnActivation::Swiglu;
    w.moe.experts = 64;
    w.moe.topK = 4;
    w.moe.expertFfnHidden = 1024;
    Parallelism par;
    par.ep = 8;
    const double tokens = w.seqLen;
    const LayerCompute lc = layerCompute(w, par, true, h800());
    const AttentionGemms attn = attentionGemms(w, tokens, 1.0);
    double expected = gemmTimeS(tokens, w.moe.experts, w.hidden, 1, h800(), Precision::Bf16);
    for (int i = 0; i < attn.inputs; ++i)
        expected +=
            gemmTimeS(attn.input[i].m, attn.input[i].n, attn.input[i].k, 1, h800(), Precision::Fp8);
    const double local = w.moe.experts / par.ep;
    expected += gemmTimeS(tokens * w.moe.topK / local, 2.0 * w.moe.expertFfnHidden, w.hidden, local,
                          h800(), Precision::Fp8);
    QVERIFY2(std::abs(lc.columnGemmS / expected - 1.0) < 1e-12,
             qPrintable(QString("%1 vs %2").arg(lc.columnGemmS).arg(expected)));
}

// Blockwise casts, per element: forward activation 2 + 1 + 4/128 bytes; backward its
// transposed re-quantisation 2 (1 + 4/128) and each output gradient 2 + 2 (1 + 4/128). A
// dense GeLU layer casts four inputs (layer input T h, projection input T h, MLP input T h,
// fc2 input T f) and four output gradients (QKV T 3h, projection T h, fc1 T f, fc2 T h), one
// kernel each; delayed scaling casts nothing of its own.
void TestFp8::blockwiseCastsChargeTheirBytes()
{
    Workload w = denseLayer();
    Parallelism par;
    const LayerCompute delayed = layerCompute(w, par, false, h800());
    QCOMPARE(delayed.fp8CastS, 0.0);
    w.fp8Recipe = Fp8Recipe::Blockwise;
    const LayerCompute blockwise = layerCompute(w, par, false, h800());
    const double t = w.seqLen;
    const double h = w.hidden;
    const double f = w.ffnHidden;
    const double rate = h800().hbmGBps * 1e9 * h800().efficiency.memoryBoundEfficiency;
    const double launch = h800().efficiency.kernelOverheadS;
    const double inputs = t * (3.0 * h + f);
    const double gradients = t * (5.0 * h + f);
    const double forwardS = (2.0 + 1.0 + 4.0 / 128.0) * inputs / rate + 4.0 * launch;
    const double backwardS =
        (2.0 * (1.0 + 4.0 / 128.0) * inputs + (2.0 + 2.0 * (1.0 + 4.0 / 128.0)) * gradients) /
            rate +
        8.0 * launch;
    QVERIFY(std::abs((blockwise.forwardS - delayed.forwardS) / forwardS - 1.0) < 1e-9);
    QVERIFY(std::abs((blockwise.backwardS - delayed.backwardS) / backwardS - 1.0) < 1e-9);
    QVERIFY(std::abs(blockwise.fp8CastS / (forwardS + backwardS) - 1.0) < 1e-9);
    // The GEMMs themselves are the same.
    QCOMPARE(blockwise.columnGemmS, delayed.columnGemmS);
    QCOMPARE(blockwise.rowGemmS, delayed.rowGemmS);
    // A BF16 workload casts nothing whatever the recipe says.
    w.precision = Precision::Bf16;
    QCOMPARE(layerCompute(w, par, false, h800()).fp8CastS, 0.0);
}

QTEST_APPLESS_MAIN(TestFp8)
#include "test_fp8.moc"
