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

constexpr std::array<ScheduleTraits, 5> kSchedules{{
    {ScheduleKind::GPipe, "gpipe", "GPipe", "Huang et al. 2019", false, false, false, false,
     gpipeInFlight},
    {ScheduleKind::OneFOneB, "1f1b", "1F1B", "Narayanan et al. 2021 section 2.2.1", false, false,
     false, true, oneFOneBInFlight},
    {ScheduleKind::Interleaved1F1B, "interleaved-1f1b", "Interleaved 1F1B",
     "Narayanan et al. 2021 section 2.2.2", true, false, false, true, interleavedInFlight},
    {ScheduleKind::ZeroBubbleH1, "zb-h1", "Zero bubble (ZB-H1)", "Qi et al. 2023 section 2.1",
     false, true, true, true, oneFOneBInFlight},
    {ScheduleKind::ZeroBubbleH2, "zb-h2", "Zero bubble (ZB-H2)", "Qi et al. 2023 section 2.2",
     false, true, true, true, zbH2InFlight},
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

double inFlightMicroBatches(ScheduleKind kind, int p, int v, int m, int rank)
{
    p = std::max(1, p);
    v = std::max(1, v);
    m = std::max(1, m);
    const double n = scheduleTraits(kind).inFlight(p, v, m, rank);
    return std::clamp(n, 1.0, static_cast<double>(m));
}

} // namespace archipelago::core
