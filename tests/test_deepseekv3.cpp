// DeepSeek-V3 against its technical report (DeepSeek-AI 2024, arXiv 2412.19437): the preset's
// parallelism is the report's (section 3.1-3.2), its cost lands near the published 180K H800
// GPU-hours per trillion tokens (section 1, Table 1), and the expert all-to-all's two switches
// (node-limited routing, FP8 dispatch) move the bytes they should.
#include "compute/computemodel.h"
#include "compute/modelflops.h"
#include "evaluation/costmodel.h"
#include "evaluation/stagecost.h"
#include "io/scenarioio.h"

#include <QtTest>

#include <cmath>

using namespace archipelago::core;

namespace {

constexpr const char* kPreset = ARCHIPELAGO_SOURCE_DIR "/presets/deepseek-v3-moe-2048-h800.json";

Scenario preset()
{
    const LoadResult r = loadScenarioFile(kPreset);
    if (!r.ok())
        qFatal("cannot load %s", kPreset);
    return *r.scenario;
}

double gpuHoursPerTrillionTokens(const Evaluation& e, const Workload& w)
{
    return e.gpuHoursToTrain / (w.trainTokens / 1e12);
}

// Expert-parallel bytes per GPU of one MoE layer, forward and backward, for one micro-batch.
double epBytes(const Workload& w, const Parallelism& par, const GroupPath& ep)
{
    PlacementAnalysis pl;
    pl.ep = ep;
    const AcceleratorSpec& accel = *builtinCatalog().accelerator("H800-SXM5-80GB");
    ChunkSpec chunk;
    chunk.moeLayers = 1;
    TrafficTally tally;
    chunkCost(w, par, pl, accel, chunk, 1.0, &tally);
    return tally.groups.ep;
}

} // namespace

class TestDeepSeekV3 : public QObject
{
    Q_OBJECT
private slots:
    void presetHasTheReportsParallelism();
    void gpuHoursWithinFifteenPercentOfPublished();
    void nodeLimitedRoutingShrinksFabricBytes();
    void fp8DispatchHalvesTheDispatchOnly();
    void mtpModuleSitsWithTheOutputHead();
    void mtpFlopsAreALayerAProjectionAndAHead();
    void mtpComputeIsProjectionNormsAndHead();
};

// Section 3.1: 2048 H800 GPUs, 8 per node; section 3.2: 16-way pipeline parallelism with
// DualPipe, 64-way expert parallelism spanning 8 nodes, ZeRO-1 data parallelism, no tensor
// parallelism; section 4.2: batch size ramped to 15,360 sequences of 4,096 tokens (the final
// value here), 14.8T tokens. The preset runs ZB-H1 in place of DualPipe (its description says
// why: memory); DualPipe itself evaluates and is no slower.
void TestDeepSeekV3::presetHasTheReportsParallelism()
{
    const Scenario s = preset();
    QCOMPARE(totalGpus(s.topology), std::int64_t{2048});
    QCOMPARE(s.parallelism.tp, 1);
    QCOMPARE(s.parallelism.pp, 16);
    QCOMPARE(s.parallelism.ep, 64);
    QCOMPARE(dataParallel(s), std::int64_t{128});
    QCOMPARE(s.parallelism.zeroStage, 1);
    QCOMPARE(s.schedule.kind, ScheduleKind::ZeroBubbleH1);
    QCOMPARE(s.workload.globalBatch, 15360);
    QCOMPARE(s.workload.seqLen, 4096);
    QCOMPARE(s.workload.moe.maxNodesPerToken, 4);
    QCOMPARE(s.workload.moe.dispatchPrecision, Precision::Fp8);
    QVERIFY(s.workload.mla.enabled());
    const Evaluation e = evaluate(s);
    QVERIFY(e.ok);
    QVERIFY(e.fitsInMemory);
    QCOMPARE(e.gpus, std::int64_t{2048});
    Scenario dualPipe = s;
    dualPipe.schedule.kind = ScheduleKind::DualPipe;
    const Evaluation d = evaluate(dualPipe);
    QVERIFY(d.ok);
    QCOMPARE(d.gpus, std::int64_t{2048});
    QVERIFY(d.iterationTimeS <= e.iterationTimeS);
}

// The report: 180K H800 GPU-hours per trillion tokens (section 1; Table 1: 2,664K GPU-hours of
// pre-training for 14.8T tokens). The acceptance band is 15%.
void TestDeepSeekV3::gpuHoursWithinFifteenPercentOfPublished()
{
    const Scenario s = preset();
    const Evaluation e = evaluate(s);
    QVERIFY(e.ok);
    const double perTrillion = gpuHoursPerTrillionTokens(e, s.workload);
    const double published = 180e3;
    qInfo("DeepSeek-V3: %.0f GPU-hours per trillion tokens (published %.0f), iteration %.2f s, "
          "EP exposed %.2f s",
          perTrillion, published, e.iterationTimeS, e.breakdown.epCommS);
    // 198K, 10% above. Per MoE layer and micro-batch the model's compute (28 ms forward,
    // backward, recompute and EP interference) matches the compute stream of DeepSeek's
    // published training profile (deepseek-ai/profile-data train.json, 29.5 ms). The rest is
    // the schedule: the multi-token prediction module and its second pass through the head
    // make the last stage the busiest under ZB-H1 (bubble 35%); DualPipe, which pairs the last
    // stage with the first on one rank, gives 138K (23% below) but needs 92 GiB here without
    // the report's memory savings (section 3.3.4), and a split with one layer on the last stage
    // gives 167K under ZB-H1. Left out: the batch-size ramp (section 4.2), imbalanced routing,
    // and the training's own FP8 kernels (DeepGEMM's table puts them 1.0-1.2x slower).
    QVERIFY2(std::abs(perTrillion / published - 1.0) <= 0.15,
             qPrintable(QString("%1 GPU-hours per trillion tokens").arg(perTrillion)));
}

// Node-limited routing sends a token across the fabric once per distinct remote node, at most
// 4 of them, instead of once per remote expert (report sections 2.1.2, 3.2.2).
void TestDeepSeekV3::nodeLimitedRoutingShrinksFabricBytes()
{
    Scenario s = preset();
    GroupPath ep; // 8 GPUs per node over NVLink, 8 nodes on one rail
    ep.levels.push_back({LinkClass::ScaleUp, 8, 200.0, 0.0});
    ep.levels.push_back({LinkClass::Leaf, 8, 50.0, 0.0});
    s.workload.moe.dispatchPrecision = Precision::Bf16;
    const double limited = epBytes(s.workload, s.parallelism, ep);
    s.workload.moe.maxNodesPerToken = 0;
    const double flat = epBytes(s.workload, s.parallelism, ep);
    // Per token and direction: flat 8 copies, 7/8 of them off the node on the fabric and 7/64
    // on NVLink; limited 3.15 fabric copies (4 (1 - (3/4)^8) x 7/8) and 7 NVLink copies.
    const double fabricLimited = 4.0 * (1.0 - std::pow(0.75, 8.0)) * 7.0 / 8.0;
    QVERIFY(std::abs(limited / flat - (fabricLimited + 7.0) / (7.0 + 8.0 * 7.0 / 64.0)) < 1e-12);

    // The whole preset: the all-to-all takes less time with the limit than without.
    Scenario unlimited = preset();
    unlimited.workload.moe.maxNodesPerToken = 0;
    const Evaluation a = evaluate(preset());
    const Evaluation b = evaluate(unlimited);
    QVERIFY(a.ok && b.ok);
    QVERIFY(a.breakdown.epCommS + a.breakdown.interferenceS <
            b.breakdown.epCommS + b.breakdown.interferenceS);
    QVERIFY(a.iterationTimeS < b.iterationTimeS);
}

// FP8 dispatch: 1 byte per element plus a 4-byte scale per 128 (report section 3.3.2) instead
// of 2; the combine stays BF16 (section 3.3.3). Per pass one dispatch and one combine: FP8
// moves (1.03125 + 2) / (2 + 2) of the BF16 bytes, flat or node-limited.
void TestDeepSeekV3::fp8DispatchHalvesTheDispatchOnly()
{
    const Scenario s = preset();
    GroupPath ep;
    ep.levels.push_back({LinkClass::ScaleUp, 8, 200.0, 0.0});
    ep.levels.push_back({LinkClass::Leaf, 8, 50.0, 0.0});
    for (const int maxNodes : {4, 0}) {
        Workload w = s.workload;
        w.moe.maxNodesPerToken = maxNodes;
        w.moe.dispatchPrecision = Precision::Fp8;
        const double fp8 = epBytes(w, s.parallelism, ep);
        w.moe.dispatchPrecision = Precision::Bf16;
        const double bf16 = epBytes(w, s.parallelism, ep);
        QVERIFY(bf16 > 0.0);
        QVERIFY2(std::abs(fp8 / bf16 - (1.0 + 4.0 / 128.0 + 2.0) / 4.0) < 1e-12,
                 qPrintable(QString("max nodes %1: ratio %2").arg(maxNodes).arg(fp8 / bf16)));
    }
}

// Multi-token prediction (report section 2.2, D = 1) shares the output head, so its module sits
// on the last chunk: one more layer of the last layer's kind (MoE) and one module; DualPipe's
// two copies each carry one.
void TestDeepSeekV3::mtpModuleSitsWithTheOutputHead()
{
    Scenario s = preset();
    QCOMPARE(s.workload.mtpDepth, 1);
    const int lastStage = s.placement.layersPerStage.back();
    std::vector<ChunkSpec> chunks = layoutChunks(s, ScheduleKind::ZeroBubbleH1, 1);
    QCOMPARE(chunks.back().moeLayers + chunks.back().denseLayers, lastStage + 1);
    QCOMPARE(chunks.back().mtpModules, 1);
    for (std::size_t c = 0; c + 1 < chunks.size(); ++c)
        QCOMPARE(chunks[c].mtpModules, 0);
    chunks = layoutChunks(s, ScheduleKind::DualPipe, 2);
    int modules = 0;
    for (const ChunkSpec& ch : chunks)
        modules += ch.last ? ch.mtpModules : 0;
    QCOMPARE(modules, 2);
    s.workload.mtpDepth = 0;
    chunks = layoutChunks(s, ScheduleKind::ZeroBubbleH1, 1);
    QCOMPARE(chunks.back().moeLayers + chunks.back().denseLayers, lastStage);
    QCOMPARE(chunks.back().mtpModules, 0);
}

// Model FLOPs per iteration: each module adds one MoE layer, the 2h -> h projection (eq. 21)
// and the output head (eq. 22) per sequence, forward and backward (3x).
void TestDeepSeekV3::mtpFlopsAreALayerAProjectionAndAHead()
{
    Workload w = preset().workload;
    const double with = modelFlopsPerIteration(w);
    w.mtpDepth = 0;
    const double without = modelFlopsPerIteration(w);
    const double h = w.hidden;
    const double perSequence =
        layerForwardFlops(w, true).total() + 2.0 * w.seqLen * 2.0 * h * h + logitsForwardFlops(w);
    QVERIFY(std::abs((with - without) / (3.0 * w.globalBatch * perSequence) - 1.0) < 1e-12);
}

// Beyond its layer: two RMSNorms (read and write T h each) and the concatenation (T 2h
// written), the projection at the workload's precision, three launches, the shared head.
void TestDeepSeekV3::mtpComputeIsProjectionNormsAndHead()
{
    const Workload w = preset().workload;
    const Parallelism par = preset().parallelism;
    const AcceleratorSpec& accel = *builtinCatalog().accelerator("H800-SXM5-80GB");
    const double t = w.seqLen;
    const double h = w.hidden;
    const double rate = accel.hbmGBps * 1e9 * accel.efficiency.memoryBoundEfficiency;
    const LogitsCompute head = logitsCompute(w, par, accel);
    const double ownS = gemmTimeS(t, h, 2.0 * h, 1.0, accel, Precision::Fp8) + 12.0 * t * h / rate +
                        3.0 * accel.efficiency.kernelOverheadS;
    const MtpCompute mtp = mtpCompute(w, par, accel);
    QVERIFY(std::abs(mtp.forwardS / (ownS + head.forwardS) - 1.0) < 1e-12);
    QVERIFY(std::abs(mtp.backwardS / (2.0 * ownS + head.backwardS) - 1.0) < 1e-12);
}

QTEST_APPLESS_MAIN(TestDeepSeekV3)
#include "test_deepseekv3.moc"
