#include "comparisontablerows.h"

#include "format.h"
#include "plotstyle.h" // breakdownParts
#include "scenariotext.h"

namespace archipelago::views {

namespace {

using Value = std::optional<double>;

QString integer(double v)
{
    return formatWholeNumber(v);
}
std::function<QString(double)> decimals(int n)
{
    return [n](double v) { return formatNumber(v, n); };
}

// A value of the Evaluation, absent when the model could not evaluate the point.
template <typename F> std::function<Value(const DesignPoint&)> evaluated(F f)
{
    return [f](const DesignPoint& p) -> Value {
        if (!p.evaluation.ok)
            return std::nullopt;
        return static_cast<double>(f(p.evaluation));
    };
}
template <typename F> std::function<Value(const DesignPoint&)> scenario(F f)
{
    return [f](const DesignPoint& p) -> Value { return static_cast<double>(f(p.scenario)); };
}

QList<ComparisonRow> makeRows()
{
    using E = core::Evaluation;
    using S = core::Scenario;
    QList<ComparisonRow> rows = {
        {"GPUs", "", Better::Neutral, true,
         [](const DesignPoint& p) -> Value {
             return static_cast<double>(
                 p.evaluation.gpus > 0 ? p.evaluation.gpus : core::totalGpus(p.scenario.topology));
         },
         integer},
        {"TP", "", Better::Neutral, false, scenario([](const S& s) { return s.parallelism.tp; }),
         integer},
        {"CP", "", Better::Neutral, false, scenario([](const S& s) { return s.parallelism.cp; }),
         integer},
        {"PP", "", Better::Neutral, false, scenario([](const S& s) { return s.parallelism.pp; }),
         integer},
        {"DP", "", Better::Neutral, false,
         scenario([](const S& s) { return core::dataParallel(s); }), integer},
        {"EP", "", Better::Neutral, false, scenario([](const S& s) { return s.parallelism.ep; }),
         integer},
        {"Virtual stages", "", Better::Neutral, false,
         scenario([](const S& s) { return s.parallelism.virtualStages; }), integer},
        {"Schedule", "", Better::Neutral, false,
         scenario([](const S& s) { return static_cast<int>(s.schedule.kind); }),
         [](double v) { return scheduleName(static_cast<core::ScheduleKind>(std::lround(v))); }},
        {"Micro-batch (sequences)", "sequences", Better::Neutral, false,
         scenario([](const S& s) { return s.parallelism.microBatch; }), integer},
        {"Micro-batches per iteration", "", Better::Neutral, false,
         scenario([](const S& s) { return core::microBatchesPerIteration(s); }), integer},
        {"Iteration time (s)", "s", Better::Lower, true,
         evaluated([](const E& e) { return e.iterationTimeS; }), decimals(3)},
        {"MFU (%)", "%", Better::Higher, true, evaluated([](const E& e) { return 100.0 * e.mfu; }),
         decimals(1)},
        {"Bubble ratio (%)", "%", Better::Lower, true,
         evaluated([](const E& e) { return 100.0 * e.bubbleRatio; }), decimals(1)},
        {"Tokens/s", "tokens/s", Better::Higher, true,
         evaluated([](const E& e) { return e.tokensPerS; }), decimals(0)},
        {"Memory peak (GiB)", "GiB", Better::Lower, true,
         evaluated([](const E& e) { return e.memoryPeakGib; }), decimals(1)},
        {"Fits in memory", "", Better::Higher, false,
         evaluated([](const E& e) { return e.fitsInMemory ? 1 : 0; }),
         [](double v) { return v > 0.5 ? QStringLiteral("yes") : QStringLiteral("no"); }},
        {"Network capex (M USD)", "M USD", Better::Lower, true,
         evaluated([](const E& e) { return e.networkCapexUsd / 1e6; }), decimals(2)},
        {"Network power (kW)", "kW", Better::Lower, true,
         evaluated([](const E& e) { return e.networkPowerW / 1e3; }), decimals(0)},
        {"Time to train (days)", "days", Better::Lower, true,
         evaluated([](const E& e) { return e.timeToTrainS / 86400.0; }), decimals(1)},
    };
    for (const BreakdownPart& part : breakdownParts()) {
        const auto member = part.seconds;
        rows.append({part.name + QStringLiteral(" (s)"), "s", Better::Lower, true,
                     evaluated([member](const E& e) { return e.breakdown.*member; }), decimals(3)});
    }
    return rows;
}

} // namespace

const QList<ComparisonRow>& comparisonRows()
{
    static const QList<ComparisonRow> rows = makeRows();
    return rows;
}

} // namespace archipelago::views
