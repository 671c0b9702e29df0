// Model and hardware FLOPs against Megatron-LM's formula (Narayanan et al. 2021, Appendix,
// eq. 3): 96*B*s*L*h^2*(1 + s/6h + V/16Lh) with full recompute, 72*B*s*L*h^2*(1 + s/6h +
// V/12Lh) without. The formula assumes GPT shapes (ffn = 4h, as many K/V heads as Q heads,
// GeLU) and drops biases, norms, softmax and the embedding lookup; our count drops the same
// (they are memory-bound work, timed on HBM, not FLOPs), so on GPT shapes the two agree to
// rounding. The 1% tolerance is the issue's; GQA and SwiGLU shapes are outside the formula.
#include "compute/modelflops.h"

#include <QtTest>

using namespace archipelago::core;

class TestFlops : public QObject
{
    Q_OBJECT
private slots:
    void megatronFormula_data();
    void megatronFormula();
    void gqaAndSwigluShrinkAndGrow();
    void moeCountsTopKAndShared();
};

void TestFlops::megatronFormula_data()
{
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("hidden");
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("seq");
    QTest::addColumn<int>("vocab");
    QTest::addColumn<int>("batch");
    QTest::newRow("gpt-1.7b") << 24 << 2304 << 24 << 2048 << 51200 << 512;
    QTest::newRow("gpt-22b") << 48 << 6144 << 64 << 2048 << 51200 << 4;
    QTest::newRow("gpt-175b") << 96 << 12288 << 96 << 2048 << 51200 << 64;
    QTest::newRow("gpt-530b") << 105 << 20480 << 128 << 2048 << 51200 << 280;
    QTest::newRow("gpt-1t") << 128 << 25600 << 160 << 2048 << 51200 << 512;
    QTest::newRow("gpt-small-long-seq") << 12 << 768 << 12 << 8192 << 50257 << 8;
}

void TestFlops::megatronFormula()
{
    QFETCH(int, layers);
    QFETCH(int, hidden);
    QFETCH(int, heads);
    QFETCH(int, seq);
    QFETCH(int, vocab);
    QFETCH(int, batch);
    Workload w;
    w.layers = layers;
    w.hidden = hidden;
    w.heads = heads;
    w.kvHeads = heads;
    w.ffnHidden = 4 * hidden;
    w.vocab = vocab;
    w.seqLen = seq;
    w.globalBatch = batch;
    const double B = batch, s = seq, L = layers, h = hidden, V = vocab;
    const double full = 96.0 * B * s * L * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * L * h));
    const double none = 72.0 * B * s * L * h * h * (1.0 + s / (6.0 * h) + V / (12.0 * L * h));
    QVERIFY(std::abs(hardwareFlopsPerIteration(w, Recompute::Full) / full - 1.0) < 0.01);
    QVERIFY(std::abs(modelFlopsPerIteration(w) / none - 1.0) < 0.01);
    QVERIFY(std::abs(hardwareFlopsPerIteration(w, Recompute::None) / none - 1.0) < 0.01);
    // Selective recompute reruns only the attention core: 4*s^2*h per layer and sequence
    // (Korthikanti et al. 2022, section 5).
    const double selective = none + 4.0 * s * s * h * L * B;
    QVERIFY(std::abs(hardwareFlopsPerIteration(w, Recompute::Selective) / selective - 1.0) < 1e-9);
}

void TestFlops::gqaAndSwigluShrinkAndGrow()
{
    Workload w;
    w.hidden = 4096;
    w.heads = 32;
    w.kvHeads = 32;
    w.ffnHidden = 14336;
    w.seqLen = 4096;
    const LayerFlops mha = layerForwardFlops(w, false);
    w.kvHeads = 8;
    const LayerFlops gqa = layerForwardFlops(w, false);
    // QKV: 2*s*h*(h + 2*kv*d); 8 of 32 KV heads -> h + h/2.
    QCOMPARE(gqa.qkv, 2.0 * 4096 * 4096 * (4096 + 2.0 * 8 * 128));
    QVERIFY(gqa.qkv < mha.qkv);
    QCOMPARE(gqa.scores, mha.scores); // scores use all query heads
    w.activation = FfnActivation::Swiglu;
    QCOMPARE(layerForwardFlops(w, false).mlp, 1.5 * gqa.mlp); // 3 matrices instead of 2
}

void TestFlops::moeCountsTopKAndShared()
{
    Workload w;
    w.hidden = 1024;
    w.heads = 8;
    w.kvHeads = 8;
    w.seqLen = 1000;
    w.activation = FfnActivation::Swiglu;
    w.moe.experts = 64;
    w.moe.topK = 6;
    w.moe.sharedExperts = 2;
    w.moe.expertFfnHidden = 512;
    const LayerFlops f = layerForwardFlops(w, true);
    QCOMPARE(f.router, 2.0 * 1000 * 1024 * 64);
    QCOMPARE(f.experts, 2.0 * 1000 * 1024 * 512 * 3 * 8);
    QCOMPARE(f.mlp, 0.0);
}

QTEST_APPLESS_MAIN(TestFlops)
#include "test_flops.moc"
