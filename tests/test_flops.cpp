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
    void latentAttentionByHand();
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

// Multi-head latent attention of DeepSeek-V3 (report section 2.1.1; deepseek-ai/DeepSeek-V3
// inference/configs/config_671B.json), by hand, per sequence of s tokens and 2 FLOPs per
// multiply-add: query down 7168 x 1536 and up 1536 x 128*192, key-value down 7168 x (512 + 64)
// and up 512 x 128*(128 + 128), output 128*128 x 7168; scores over 192 and values over 128 per
// head (the full s x s matrix, as for standard attention).
void TestFlops::latentAttentionByHand()
{
    Workload w;
    w.hidden = 7168;
    w.heads = 128;
    w.kvHeads = 128;
    w.seqLen = 4096;
    w.ffnHidden = 18432;
    w.activation = FfnActivation::Swiglu;
    const LayerFlops standard = layerForwardFlops(w, false);
    w.mla = MlaConfig{1536, 512, 128, 64, 128};
    const LayerFlops mla = layerForwardFlops(w, false);
    const double s = 4096;
    const double projections = 7168.0 * 1536 + 1536.0 * 128 * 192 + 7168.0 * (512 + 64) +
                               512.0 * 128 * (128 + 128); // 69,664,768 multiply-adds per token
    QCOMPARE(projections, 69664768.0);
    QCOMPARE(mla.qkv, 2.0 * s * projections);
    QCOMPARE(mla.projection, 2.0 * s * 128 * 128 * 7168);
    // Selective recompute with MLA reruns the two up-projections (report section 3.2.3).
    QCOMPARE(mla.upProjections, 2.0 * s * (1536.0 * 128 * 192 + 512.0 * 128 * 256));
    QCOMPARE(mla.scores, 2.0 * s * s * 128 * 192);
    QCOMPARE(mla.values, 2.0 * s * s * 128 * 128);
    QCOMPARE(mla.mlp, standard.mlp); // the MLP does not change
    // Against 128 standard heads of 7168/128 = 56: fewer projection FLOPs (187M against 205M
    // weights per layer), more attention-core FLOPs (head dims 192 and 128 against 56).
    QVERIFY(mla.qkv + mla.projection < standard.qkv + standard.projection);
    QVERIFY(mla.attentionCore() > 2.8 * standard.attentionCore());
    // Without a query rank the queries come straight from the hidden state (DeepSeek-V2-Lite).
    w.mla.qLoraRank = 0;
    QCOMPARE(layerForwardFlops(w, false).qkv,
             2.0 * s * (7168.0 * 128 * 192 + 7168.0 * (512 + 64) + 512.0 * 128 * 256));
}

QTEST_APPLESS_MAIN(TestFlops)
#include "test_flops.moc"
