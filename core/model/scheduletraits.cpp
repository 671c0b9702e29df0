#include "model/scheduletraits.h"

#include <algorithm>
#include <array>

namespace archipelago::core {

namespace {

// GPipe holds every micro-batch's activations until the backward phase (Huang et al. 2019).
double gpipeInFlight(int, int, int m, int)
{
    return m;
}

// 1F1B: rank r runs p - r warm-up forwards before its first backward (Narayanan et al. 2021
// section 2.2.1, PipeDream-Flush). ZB-H1 keeps the same peak (Qi et al. 2023 section 2.1).
double oneFOneBInFlight(int p, int, int, int rank)
{
    return p - rank;
}

// Interleaved 1F1B: Megatron's warm-up of (p - r - 1) * 2 + (v - 1) * p chunk-forwards plus
// the one in flight (megatron/core/pipeline_parallel/schedules.py), in micro-batches of v
// chunks each.
double interleavedInFlight(int p, int v, int m, int rank)
{
    return std::min<double>(static_cast<double>(m) * v,
                            (p - rank - 1) * 2.0 + (v - 1.0) * p + 1.0) /
           v;
}

// ZB-H2: 2(p - r) - 1 warm-up forwards fill the bubble before the first B (Qi et al. 2023
// section 2.2).
double zbH2InFlight(int p, int, int, int rank)
{
    return 2.0 * (p - rank) - 1.0;
}

// DualPipe: p + 1 chunk activations on every rank (DeepSeek-V3 report Table 2, "PP + 1"),
// counting those a deferred W still holds; in micro-batches of the rank's 2 chunks, (p + 1)/2.
double dualPipeInFlight(int p, int, int, int)
{
    return (p + 1.0) / 2.0;
}

constexpr std::array<ScheduleTraits, 6> kSchedules{{
    {ScheduleKind::GPipe, "gpipe", "GPipe", "Huang et al. 2019", false, false, false, false,
     gpipeInFlight, 0, 1},
    {ScheduleKind::OneFOneB, "1f1b", "1F1B", "Narayanan et al. 2021 section 2.2.1", false, false,
     false, true, oneFOneBInFlight, 0, 1},
    {ScheduleKind::Interleaved1F1B, "interleaved-1f1b", "Interleaved 1F1B",
     "Narayanan et al. 2021 section 2.2.2", true, false, false, true, interleavedInFlight, 0, 1},
    {ScheduleKind::ZeroBubbleH1, "zb-h1", "Zero bubble (ZB-H1)", "Qi et al. 2023 section 2.1",
     false, true, true, true, oneFOneBInFlight, 0, 1},
    {ScheduleKind::ZeroBubbleH2, "zb-h2", "Zero bubble (ZB-H2)", "Qi et al. 2023 section 2.2",
     false, true, true, true, zbH2InFlight, 0, 1},
    // Bidirectional: half the micro-batches enter at rank 0, half at rank p - 1; B is split
    // into input and weight gradient where the schedule fills bubbles with W (DeepSeek-V3
    // report section 3.2.1, Figure 5; deepseek-ai/DualPipe dualpipe.py). One iteration ends
    // in a drain (the W's of the tail), so the makespan is the cost.
    {ScheduleKind::DualPipe, "dualpipe", "DualPipe",
     "DeepSeek-AI 2024 (DeepSeek-V3 report) section 3.2.1", false, true, false, false,
     dualPipeInFlight, 2, 2},
}};

constexpr bool tableInEnumOrder()
{
    for (std::size_t i = 0; i < kSchedules.size(); ++i)
        if (static_cast<std::size_t>(kSchedules[i].kind) != i)
            return false;
    return true;
}
static_assert(tableInEnumOrder(), "kSchedules is indexed by ScheduleKind");

} // namespace

const ScheduleTraits& scheduleTraits(ScheduleKind kind)
{
    return kSchedules[static_cast<std::size_t>(kind)];
}

std::span<const ScheduleTraits> allScheduleTraits()
{
    return kSchedules;
}

int chunksPerRank(ScheduleKind kind, int virtualStages)
{
    const int fixed = scheduleTraits(kind).fixedChunksPerRank;
    return fixed > 0 ? fixed : std::max(1, virtualStages);
}

double inFlightMicroBatches(ScheduleKind kind, int p, int v, int m, int rank)
{
    p = std::max(1, p);
    v = std::max(1, v);
    m = std::max(1, m);
    const double n = scheduleTraits(kind).inFlight(p, v, m, rank);
    return std::clamp(n, 1.0, static_cast<double>(m));
}

} // namespace archipelago::core
