#include "explore/lowerbound.h"

#include "compute/computemodel.h"
#include "compute/modelflops.h"
#include "evaluation/stagecost.h"
#include "model/scheduletraits.h"

#include <algorithm>
#include <cmath>

namespace archipelago::core {

namespace {

// Rounding: the bound sums the same work in another order than the cost model; one part in a
// billion below keeps it below whatever the last bits do (the real gap is tens of percent).
constexpr double kRoundingMargin = 1.0 - 1e-9;

// The schedule as evaluate() runs it (evaluation/costmodel.cpp, adjustSchedule): v only for
// interleaving, interleaving only with v > 1 and m a multiple of p.
void effectiveSchedule(const Scenario& s, ScheduleKind& kind, int& virtualStages)
{
    kind = s.schedule.kind;
    virtualStages = s.parallelism.virtualStages;
    if (virtualStages > 1 && kind != ScheduleKind::Interleaved1F1B)
        virtualStages = 1;
    if (kind == ScheduleKind::Interleaved1F1B && virtualStages == 1)
        kind = ScheduleKind::OneFOneB;
    const std::int64_t dp = dataParallel(s);
    const std::int64_t perStep = std::int64_t{s.parallelism.microBatch} * dp;
    if (kind == ScheduleKind::Interleaved1F1B && dp >= 1 && s.parallelism.microBatch >= 1 &&
        s.workload.globalBatch % perStep == 0 &&
        (s.workload.globalBatch / perStep) % std::max(1, s.parallelism.pp) != 0) {
        kind = ScheduleKind::OneFOneB;
        virtualStages = 1;
    }
}

// Seconds of `flops` at the best the compute model allows: peak * gemm_peak (tensorTimeS in
// compute/computemodel.cpp floors its efficiency at 1e-6, so does this).
double atPeakS(double flops, const AcceleratorSpec& accel, Precision precision)
{
    return flops /
           (peakFlopsPerS(accel, precision) * std::max(accel.efficiency.gemmPeakEfficiency, 1e-6));
}

// Lower bounds of one layer's forward and backward-plus-recompute on one accelerator.
struct LayerBound
{
    double forwardS = 0.0;
    double backwardS = 0.0; // backward + recompute
};

LayerBound layerBound(const Workload& w, const Parallelism& par, bool moe,
                      const AcceleratorSpec& accel)
{
    const bool fused = fusedAttention(accel, par.kernels);
    const LayerGemmFlops f = layerGemmFlops(w, par, moe, fused);
    const double gemmS = atPeakS(f.gemm, accel, w.precision);
    const double attentionS = atPeakS(f.attention, accel, Precision::Bf16);
    LayerBound out;
    out.forwardS = gemmS + attentionS;
    // Backward: 2x the forward GEMMs (Narayanan et al. 2021, Appendix); flash attention's
    // backward runs 5 GEMMs for the forward's 2 (Dao 2023 section 3.1.2), the unfused one 2x.
    out.backwardS = 2.0 * gemmS + (fused ? 2.5 : 2.0) * attentionS;
    if (par.recompute == Recompute::Full)
        out.backwardS += out.forwardS; // the whole forward again (Korthikanti et al. 2022)
    else if (par.recompute == Recompute::Selective && w.mla.enabled())
        out.backwardS += atPeakS(f.upProjections, accel, w.precision); // DeepSeek-V3 sec. 3.2.3
    else if (par.recompute == Recompute::Selective)
        out.backwardS += attentionS; // the attention core again (ibid. section 5)
    return out;
}

} // namespace

LayerGemmFlops layerGemmFlops(const Workload& w, const Parallelism& par, bool moeLayer, bool fused)
{
    // The shapes of compute/computemodel.cpp layerCompute, 2 FLOPs per multiply-add: Megatron
    // tensor parallelism (Shoeybi et al. 2019, section 3), ring attention for CP (Liu et al.
    // 2023), causal flash attention computing half the scores (Dao 2023 section 3.1.1).
    const double t = std::max(1, par.tp);
    const double cp = std::max(1, par.cp);
    const double b = std::max(1, par.microBatch);
    const double s = w.seqLen;
    const double h = w.hidden;
    const double dqk = qkHeadDim(w);
    const double dv = valueHeadDim(w);
    const double tokens = b * s / cp;
    const double headsPerGpu = std::max(1.0, w.heads / t);
    const double mats = mlpMatrices(w.activation);
    const double f = w.ffnHidden;
    const bool fusedInput = w.parallelBlock && !moeLayer && !w.mla.enabled();
    double gemm = 0.0;
    const auto add = [&gemm](double m, double n, double k, double batch = 1.0) {
        if (m > 0.0 && n > 0.0 && k > 0.0 && batch > 0.0)
            gemm += 2.0 * m * n * k * batch;
    };
    double upProjections = 0.0;
    const AttentionGemms attn = attentionGemms(w, tokens, t);
    for (int i = 0; i < attn.inputs; ++i) {
        const GemmShape& g = attn.input[i];
        add(g.m, fusedInput ? g.n + (mats - 1.0) * f / t : g.n, g.k);
        if (g.upProjection)
            upProjections += g.flops();
    }
    add(attn.output.m, attn.output.n, attn.output.k);
    if (moeLayer) {
        const MoeConfig& moe = w.moe;
        const double ep = std::max(1, par.ep);
        const double fe = moe.expertFfnHidden;
        const double routed = tokens * moe.topK;
        const double localExperts = std::max(1.0, moe.experts / ep);
        const double perExpert = routed / localExperts;
        add(tokens, moe.experts, h);
        add(perExpert, (mats - 1.0) * fe / t, h, localExperts);
        add(perExpert, h, fe / t, localExperts);
        if (moe.sharedExperts > 0) {
            const double fs = fe * moe.sharedExperts;
            add(tokens, (mats - 1.0) * fs / t, h);
            add(tokens, h, fs / t);
        }
    } else {
        if (!fusedInput)
            add(tokens, (mats - 1.0) * f / t, h);
        add(tokens, h, f / t);
    }
    const double heads = b * headsPerGpu;
    LayerGemmFlops out;
    out.gemm = gemm;
    out.upProjections = upProjections;
    if (fused) {
        const double scores = (s / cp) * s * heads * causalScoreFraction(w);
        out.attention = 2.0 * scores * (dqk + dv);
    } else if (s / cp > 0.0 && s > 0.0 && dqk > 0.0 && heads > 0.0) {
        out.attention = 2.0 * (s / cp) * s * (dqk + dv) * heads;
    }
    return out;
}

double iterationTimeLowerBoundS(const Scenario& s, const Catalog& catalog)
{
    const Workload& w = s.workload;
    const int p = s.parallelism.pp;
    const std::int64_t m = microBatchesPerIteration(s);
    if (p < 1 || m < 1 || s.topology.datacenters.empty())
        return 0.0;
    // The cost model runs a rank on the slowest accelerator of the datacenters that hold it:
    // one of the topology's. The bound takes the fastest for the logits and, per layer kind,
    // the smallest bound of them all (generations differ in fused attention too).
    const AcceleratorSpec* fastest = nullptr;
    for (const Datacenter& dc : s.topology.datacenters)
        if (const AcceleratorSpec* a = catalog.accelerator(dc.accelerator))
            if (!fastest ||
                peakFlopsPerS(*a, w.precision) * std::max(a->efficiency.gemmPeakEfficiency, 1e-6) >
                    peakFlopsPerS(*fastest, w.precision) *
                        std::max(fastest->efficiency.gemmPeakEfficiency, 1e-6))
                fastest = a;
    if (!fastest)
        return 0.0;
    Parallelism par = s.parallelism;
    ScheduleKind kind = ScheduleKind::OneFOneB;
    int virtualStages = 1;
    effectiveSchedule(s, kind, virtualStages);
    par.virtualStages = virtualStages;
    LayerBound dense{};
    LayerBound moe{};
    bool first = true;
    for (const Datacenter& dc : s.topology.datacenters) {
        const AcceleratorSpec* a = catalog.accelerator(dc.accelerator);
        if (!a)
            continue;
        const LayerBound d = layerBound(w, par, false, *a);
        const LayerBound e = layerBound(w, par, true, *a);
        dense.forwardS = first ? d.forwardS : std::min(dense.forwardS, d.forwardS);
        dense.backwardS = first ? d.backwardS : std::min(dense.backwardS, d.backwardS);
        moe.forwardS = first ? e.forwardS : std::min(moe.forwardS, e.forwardS);
        moe.backwardS = first ? e.backwardS : std::min(moe.backwardS, e.backwardS);
        first = false;
    }
    // Output layer: the logits GEMM forward, 2x backward (computemodel.cpp logitsCompute).
    const double tokens =
        std::max(1, par.microBatch) * static_cast<double>(w.seqLen) / std::max(1, par.cp);
    const double logitsFlops =
        w.vocab > 0 && w.hidden > 0
            ? 2.0 * tokens * (w.vocab / std::max(1.0, 1.0 * par.tp)) * w.hidden
            : 0.0;
    const double logitsS = atPeakS(logitsFlops, *fastest, w.precision);

    const ScheduleTraits& traits = scheduleTraits(kind);
    const int v = chunksPerRank(kind, virtualStages);
    const std::vector<ChunkSpec> chunks = layoutChunks(s, kind, v);
    const double chunkMicroBatches = static_cast<double>(m / traits.modelCopies);
    std::vector<double> busy(static_cast<std::size_t>(p), 0.0);
    std::vector<double> forward(chunks.size(), 0.0);
    std::vector<double> backward(chunks.size(), 0.0);
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        const ChunkSpec& ch = chunks[c];
        // The multi-token prediction modules' layers are among the chunk's; each also runs
        // the output head again.
        const double heads = (ch.last ? 1.0 : 0.0) + ch.mtpModules;
        forward[c] =
            ch.denseLayers * dense.forwardS + ch.moeLayers * moe.forwardS + heads * logitsS;
        backward[c] =
            ch.denseLayers * dense.backwardS + ch.moeLayers * moe.backwardS + heads * 2.0 * logitsS;
        if (ch.rank >= 0 && ch.rank < p)
            busy[static_cast<std::size_t>(ch.rank)] +=
                (forward[c] + backward[c]) * chunkMicroBatches;
    }
    double bound = *std::max_element(busy.begin(), busy.end());
    // Pipeline fill and drain (see the header): one chain of chunks, the makespan is the cost.
    if (traits.modelCopies == 1 && !traits.steadyStatePeriod) {
        double fill = 0.0;
        double drain = 0.0;
        for (int k = 0; k < p && k < static_cast<int>(chunks.size()); ++k) {
            const double rankBound =
                fill + busy[static_cast<std::size_t>(k)] + (traits.splitsWeightGrad ? 0.0 : drain);
            bound = std::max(bound, rankBound);
            fill += forward[static_cast<std::size_t>(k)];
            drain += backward[static_cast<std::size_t>(k)];
        }
    }
    return bound * kRoundingMargin;
}

double timeToTrainS(const Workload& w, double iterationTimeS)
{
    // evaluation/resultpasses.cpp breakdownPass: tokens per second, then train tokens over it.
    const double tokens = static_cast<double>(w.globalBatch) * w.seqLen;
    const double tokensPerS = tokens / iterationTimeS;
    return w.trainTokens / tokensPerS;
}

void BoundFilter::Front::assign(std::vector<std::pair<double, double>> points)
{
    std::sort(points.begin(), points.end());
    x.clear();
    minY.clear();
    x.reserve(points.size());
    minY.reserve(points.size());
    for (const auto& [px, py] : points) {
        x.push_back(px);
        minY.push_back(minY.empty() ? py : std::min(minY.back(), py));
    }
}

bool BoundFilter::Front::weaklyDominated(double px, double py) const
{
    // Some kept point no worse on both (ParetoFront::insert refuses the point then).
    const auto it = std::upper_bound(x.begin(), x.end(), px);
    if (it == x.begin())
        return false;
    return minY[static_cast<std::size_t>(it - x.begin()) - 1] <= py;
}

BoundFilter::BoundFilter(const BoundFilterState& state)
    : m_top(state.top)
    , m_baseTimeS(state.baseTimeS)
{
    m_timeCapex.assign(state.timeVsCapex);
    m_timeMemory.assign(state.timeVsMemory);
    m_trainCost.assign(state.trainTimeVsCost);
}

bool BoundFilter::prunable(const PointBounds& pt) const
{
    const double known[] = {pt.iterationTimeS,  pt.timeToTrainS, pt.memoryPeakGib,
                            pt.networkCapexUsd, pt.totalCostUsd, pt.runCostUsd};
    for (const double value : known)
        if (!std::isfinite(value))
            return false;
    // (c) Possibly faster than the base: it would count in the base's rank.
    if (pt.iterationTimeS < m_baseTimeS)
        return false;
    // (a) Possibly on a front.
    if (!m_timeCapex.weaklyDominated(pt.iterationTimeS, pt.networkCapexUsd) ||
        !m_timeMemory.weaklyDominated(pt.iterationTimeS, pt.memoryPeakGib) ||
        !m_trainCost.weaklyDominated(pt.timeToTrainS, pt.totalCostUsd))
        return false;
    // (b) Possibly in a top list: ranked before the last (smaller value, or the same value
    // and faster; an equal time loses on the index).
    for (std::size_t k = 0; k < kSweepObjectives; ++k) {
        const BoundFilterState::TopList& list = m_top[k];
        if (!list.full)
            return false;
        double value = 0.0;
        switch (static_cast<SweepObjective>(k)) {
        case SweepObjective::IterationTime:
            value = pt.iterationTimeS;
            break;
        case SweepObjective::TimeToTrain:
            value = pt.timeToTrainS;
            break;
        case SweepObjective::EffectiveTimeToTrain:
            // The run takes at least its failure-free time (ETTR <= 1).
            value = pt.timeToTrainS;
            break;
        case SweepObjective::TotalCost:
            value = pt.totalCostUsd;
            break;
        case SweepObjective::RunCost:
            // The cost per hour is known before evaluation; the hours are at least the
            // failure-free time's.
            value = pt.runCostUsd;
            break;
        case SweepObjective::NetworkCapex:
            value = pt.networkCapexUsd;
            break;
        case SweepObjective::MemoryPeak:
            value = pt.memoryPeakGib;
            break;
        case SweepObjective::Count:
            break;
        }
        if (value < list.lastValue ||
            (value == list.lastValue && pt.iterationTimeS < list.lastTimeS))
            return false;
    }
    return true;
}

} // namespace archipelago::core
