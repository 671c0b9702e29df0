// Helpers shared by the pipeline simulator's tests: uniform stages, a run that reports its
// error, a relative comparison (COMPARE_REL) and a schedule's short name for data rows.
#pragma once

#include "pipeline/pipelinesimulator.h"

#include <QTest>

#include <algorithm>
#include <cmath>

Q_DECLARE_METATYPE(archipelago::core::PipelineSpec)
Q_DECLARE_METATYPE(archipelago::core::ScheduleKind)

namespace archipelago::tests {

inline constexpr double relTol = 1e-9;

inline bool fuzzyEqual(double a, double b)
{
    return std::abs(a - b) <= relTol * std::max({1.0, std::abs(a), std::abs(b)});
}

#define COMPARE_REL(actual, expected)                                                              \
    do {                                                                                           \
        const double a_ = (actual);                                                                \
        const double e_ = (expected);                                                              \
        if (!archipelago::tests::fuzzyEqual(a_, e_))                                               \
            QFAIL(qPrintable(QStringLiteral("%1 = %2, expected %3")                                \
                                 .arg(QLatin1String(#actual))                                      \
                                 .arg(a_, 0, 'g', 17)                                              \
                                 .arg(e_, 0, 'g', 17)));                                           \
    } while (false)

inline const char* name(core::ScheduleKind k)
{
    using core::ScheduleKind;
    switch (k) {
    case ScheduleKind::GPipe:
        return "gpipe";
    case ScheduleKind::OneFOneB:
        return "1f1b";
    case ScheduleKind::Interleaved1F1B:
        return "interleaved";
    case ScheduleKind::ZeroBubbleH1:
        return "zb-h1";
    case ScheduleKind::ZeroBubbleH2:
        return "zb-h2";
    case ScheduleKind::DualPipe:
        return "dualpipe";
    }
    return "?";
}

// Uniform stages: a full forward f and backward b per rank, split evenly over its v chunks.
inline core::PipelineSpec uniform(core::ScheduleKind kind, int p, int v, int m, double f = 1.0,
                                  double b = 2.0, double send = 0.0)
{
    core::PipelineSpec s;
    s.schedule = kind;
    s.stages = p;
    s.virtualStages = v;
    s.microBatches = m;
    const auto n = static_cast<std::size_t>(p * v);
    s.forwardS.assign(n, f / v);
    s.backwardS.assign(n, b / v);
    if (send > 0.0)
        s.sendS.assign(n - 1, send);
    s.recordTimeline = false;
    return s;
}

inline core::PipelineResult run(const core::PipelineSpec& spec)
{
    core::PipelineResult r = core::simulatePipeline(spec);
    if (!r.ok)
        qWarning("simulatePipeline failed: %s", r.error.c_str());
    return r;
}

} // namespace archipelago::tests
