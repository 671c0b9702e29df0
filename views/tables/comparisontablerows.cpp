#include "tables/comparisontablerows.h"

#include "common/format.h"
#include "common/scenariotext.h"
#include "plots/plotstyle.h" // breakdownParts

#include "evaluation/linksizing.h"
#include "io/scenarioio.h"

#include <QMap>
#include <QSet>

#include <algorithm>
#include <map>
#include <set>

namespace archipelago::views {

namespace {

using Value = std::optional<double>;
using Text = std::optional<QString>;

QString integer(double v)
{
    return formatWholeNumber(v);
}
std::function<QString(double)> decimals(int n)
{
    return [n](double v) { return formatNumber(v, n); };
}

// Three significant figures, never "0.00" for a small design ("0.0123", "12.3", "1,234").
QString significant3(double v)
{
    return formatSignificant(v, 3);
}

// A value of the Evaluation, absent when the model could not evaluate the point.
template <typename F> std::function<Value(const EvaluatedDesign&)> evaluated(F f)
{
    return [f](const EvaluatedDesign& p) -> Value {
        if (!p.evaluation.ok)
            return std::nullopt;
        return static_cast<double>(f(p.evaluation));
    };
}
template <typename F> std::function<Value(const EvaluatedDesign&)> scenario(F f)
{
    return [f](const EvaluatedDesign& p) -> Value { return static_cast<double>(f(p.scenario)); };
}

// The DCI links' utilisation from the evaluation, by link id (busier direction).
QMap<core::Id, double> dciUtilisation(const core::Evaluation& e)
{
    QMap<core::Id, double> byLink;
    for (const core::LinkTraffic& t : e.traffic)
        if (t.linkClass == core::LinkClass::Dci && t.dciLinkId >= 0)
            byLink[t.dciLinkId] = std::max(byLink.value(t.dciLinkId), t.utilisation);
    return byLink;
}

// What each DCI link needs for a design (evaluation/linksizing.h): a bisection of a dozen
// evaluations per link, the costliest cell of the table. The table rebuilds on every edit and
// asks twice per design (the cell and its tool tip), and pins do not change between edits, so
// the last designs' sizings are kept (the GUI thread's; compared by scenario, which costs far
// less than one evaluation).
const core::LinkSizing& linkSizing(const core::Scenario& scenario, core::Id link)
{
    struct Entry
    {
        core::Scenario scenario;
        std::map<core::Id, core::LinkSizing> links;
    };
    constexpr std::size_t kKept = 16;
    thread_local std::vector<Entry> cache;
    auto it = std::find_if(cache.begin(), cache.end(),
                           [&](const Entry& e) { return e.scenario == scenario; });
    if (it == cache.end()) {
        if (cache.size() == kKept)
            cache.pop_back(); // the least recently used
        cache.insert(cache.begin(), Entry{scenario, {}});
        it = cache.begin();
    } else if (it != cache.begin()) {
        std::rotate(cache.begin(), it, it + 1);
        it = cache.begin();
    }
    auto found = it->links.find(link);
    if (found == it->links.end())
        found = it->links
                    .emplace(link, core::wavelengthsNeeded(scenario,
                                                           core::effectiveCatalog(scenario), link))
                    .first;
    return found->second;
}

QString perLink(const EvaluatedDesign& p, const std::function<QString(const core::DciLink&)>& what)
{
    QStringList lines;
    for (const core::DciLink& link : p.scenario.topology.links)
        lines.append(QStringLiteral("%1: %2").arg(linkTitle(p.scenario, link), what(link)));
    return lines.join(QLatin1Char('\n'));
}

// Values per link in a compact cell: "6.4 Tb/s" when all links agree, else "min–max".
Text compactRange(const EvaluatedDesign& p,
                  const std::function<double(const core::DciLink&)>& value,
                  const std::function<QString(double)>& format)
{
    const auto& links = p.scenario.topology.links;
    if (links.empty())
        return std::nullopt;
    // Once per link: a value may cost an evaluation or a dozen (DCI needed).
    double low = value(links.front()), high = low;
    for (std::size_t i = 1; i < links.size(); ++i) {
        const double v = value(links[i]);
        low = std::min(low, v);
        high = std::max(high, v);
    }
    return low == high ? format(low) : QStringLiteral("%1–%2").arg(format(low), format(high));
}

double capacityGbps(const core::DciLink& link)
{
    return link.wavelengths * link.gbpsPerWavelength;
}

// A row of text (with an optional per-cell detail).
ComparisonRow textRow(const char* label, const char* description,
                      std::function<Text(const EvaluatedDesign&)> text,
                      std::function<QString(const EvaluatedDesign&)> detail = {})
{
    ComparisonRow row{label, "", Better::Neutral, false, {}, {}, description};
    row.text = std::move(text);
    row.detail = std::move(detail);
    return row;
}

QList<ComparisonRow> makeRows()
{
    using E = core::Evaluation;
    using S = core::Scenario;
    QList<ComparisonRow> rows = {
        {"GPUs", "", Better::Neutral, true,
         [](const EvaluatedDesign& p) -> Value {
             return static_cast<double>(
                 p.evaluation.gpus > 0 ? p.evaluation.gpus : core::totalGpus(p.scenario.topology));
         },
         integer, "GPUs of the job"},
        {"Global batch", "sequences", Better::Neutral, true,
         scenario([](const S& s) { return s.workload.globalBatch; }), integer,
         "Global batch in sequences per iteration: two points with different batches train "
         "different jobs"},
        {"TP", "", Better::Neutral, false, scenario([](const S& s) { return s.parallelism.tp; }),
         integer, "Tensor-parallel degree"},
        {"CP", "", Better::Neutral, false, scenario([](const S& s) { return s.parallelism.cp; }),
         integer, "Context-parallel degree"},
        {"PP", "", Better::Neutral, false, scenario([](const S& s) { return s.parallelism.pp; }),
         integer, "Pipeline-parallel degree (stages)"},
        {"DP", "", Better::Neutral, false,
         scenario([](const S& s) { return core::dataParallel(s); }), integer,
         "Data-parallel degree"},
        {"EP", "", Better::Neutral, false, scenario([](const S& s) { return s.parallelism.ep; }),
         integer, "Expert-parallel degree"},
        {"v", "", Better::Neutral, false,
         scenario([](const S& s) { return s.parallelism.virtualStages; }), integer,
         "Virtual stages (model chunks) per pipeline rank"},
        {"Schedule", "", Better::Neutral, false,
         scenario([](const S& s) { return static_cast<int>(s.schedule.kind); }),
         [](double v) { return scheduleName(static_cast<core::ScheduleKind>(std::lround(v))); },
         "Pipeline schedule"},
        {"µ-batch", "sequences", Better::Neutral, false,
         scenario([](const S& s) { return s.parallelism.microBatch; }), integer,
         "Micro-batch size in sequences"},
        {"m", "", Better::Neutral, false, scenario([](const S& s) {
             return core::dataParallel(s) > 0 ? core::microBatchesPerIteration(s) : 0;
         }),
         integer, "Micro-batches per iteration through each pipeline"},
    };
    rows.append(textRow(
        "Across DCs",
        "Which parallel dimension crosses each datacenter boundary (per pair of datacenters in "
        "the cell's tooltip); — when the job stays in one datacenter",
        [](const EvaluatedDesign& p) -> Text {
            QStringList dims;
            for (const QString& crossing : boundaryCrossings(p.scenario))
                for (const QString& dim :
                     crossing.section(QStringLiteral(": "), 1).split(QStringLiteral(" + ")))
                    if (!dims.contains(dim))
                        dims.append(dim);
            if (dims.isEmpty())
                return std::nullopt;
            return dims.join(QStringLiteral(" + "));
        },
        [](const EvaluatedDesign& p) {
            return boundaryCrossings(p.scenario).join(QLatin1Char('\n'));
        }));
    {
        ComparisonRow capacity{"DCI capacity",
                               "",
                               Better::Neutral,
                               false,
                               {},
                               {},
                               "Capacity of each DCI link (wavelengths × rate), per direction"};
        capacity.text = [](const EvaluatedDesign& p) {
            return compactRange(p, capacityGbps, [](double g) { return formatGbps(g); });
        };
        capacity.detail = [](const EvaluatedDesign& p) {
            return perLink(p, [](const core::DciLink& l) {
                return QStringLiteral("%1 (%2)").arg(formatGbps(capacityGbps(l)), linkSummary(l));
            });
        };
        rows.append(capacity);
        // What capacity each link needs for this design (evaluation/linksizing.h): the planner's
        // question, answered per design point beside what the link has.
        ComparisonRow needed{"DCI needed",
                             "",
                             Better::Neutral,
                             false,
                             {},
                             {},
                             "Capacity each DCI link needs for this design: the fewest wavelengths "
                             "(at the link's rate) that keep the iteration within 1% of the same "
                             "design on an unlimited link"};
        needed.text = [](const EvaluatedDesign& p) -> Text {
            if (!p.evaluation.ok)
                return std::nullopt;
            return compactRange(
                p, [&](const core::DciLink& l) { return linkSizing(p.scenario, l.id).gbps; },
                [](double g) { return formatGbps(g); });
        };
        needed.detail = [](const EvaluatedDesign& p) {
            if (!p.evaluation.ok)
                return QString();
            return perLink(p, [&](const core::DciLink& l) {
                const core::LinkSizing& n = linkSizing(p.scenario, l.id);
                if (!n.ok)
                    return QStringLiteral("—");
                return QStringLiteral("%1 (%2 × %3 Gb/s): iteration %4, %5 on an unlimited link, "
                                      "%6 with its %7")
                    .arg(formatGbps(n.gbps))
                    .arg(n.wavelengths)
                    .arg(l.gbpsPerWavelength)
                    .arg(formatSeconds(n.iterationS), formatSeconds(n.unlimitedS),
                         formatSeconds(n.currentS), formatGbps(capacityGbps(l)));
            });
        };
        rows.append(needed);
        ComparisonRow distance{
            "DCI distance", "", Better::Neutral, false, {}, {}, "Fibre distance of each DCI link"};
        distance.text = [](const EvaluatedDesign& p) {
            return compactRange(
                p, [](const core::DciLink& l) { return l.distanceKm; },
                [](double km) { return formatKm(km); });
        };
        distance.detail = [](const EvaluatedDesign& p) {
            return perLink(p, [](const core::DciLink& l) { return formatKm(l.distanceKm); });
        };
        rows.append(distance);
    }
    rows.append({"DCI util. (%)", "%", Better::Neutral, true,
                 [](const EvaluatedDesign& p) -> Value {
                     if (!p.evaluation.ok || p.scenario.topology.links.empty())
                         return std::nullopt;
                     const QMap<core::Id, double> u = dciUtilisation(p.evaluation);
                     double busiest = 0.0;
                     for (const double v : u)
                         busiest = std::max(busiest, v);
                     return 100.0 * busiest;
                 },
                 decimals(1),
                 "Utilisation of the busiest DCI link: its busy time (busier direction) ÷ the "
                 "iteration time"});
    rows.last().detail = [](const EvaluatedDesign& p) {
        const QMap<core::Id, double> u = dciUtilisation(p.evaluation);
        return perLink(p, [&u](const core::DciLink& l) {
            return u.contains(l.id) ? formatPercent(u.value(l.id)) : QStringLiteral("idle");
        });
    };
    rows.append(textRow(
        "Transport", "What carries the bytes across each DCI link (docs/network.md)",
        [](const EvaluatedDesign& p) -> Text {
            QStringList names;
            for (const core::DciLink& link : p.scenario.topology.links)
                if (!names.contains(transportName(link.transport)))
                    names.append(transportName(link.transport));
            if (names.isEmpty())
                return std::nullopt;
            return names.join(QStringLiteral(", "));
        },
        [](const EvaluatedDesign& p) {
            return perLink(p, [](const core::DciLink& l) { return transportName(l.transport); });
        }));
    const QList<ComparisonRow> results = {
        {"Iteration time (s)", "s", Better::Lower, true,
         evaluated([](const E& e) { return e.iterationTimeS; }), decimals(3),
         "Time of one training iteration"},
        {"MFU (%)", "%", Better::Higher, true, evaluated([](const E& e) { return 100.0 * e.mfu; }),
         decimals(1), "Model FLOPs utilisation: model FLOPs ÷ (GPUs × peak FLOP/s × time)"},
        // In percent for the deltas, printed as every view prints it (formatBubbleRatio).
        {bubbleRatioName(), "", Better::Lower, true,
         evaluated([](const E& e) { return 100.0 * e.bubbleRatio; }),
         [](double percent) { return formatBubbleRatio(percent / 100.0); }, bubbleRatioToolTip()},
        {"Tokens/s", "tokens/s", Better::Higher, true,
         evaluated([](const E& e) { return e.tokensPerS; }), decimals(0),
         "Training throughput in tokens per second"},
        {"Memory (GiB)", "GiB", Better::Lower, true,
         evaluated([](const E& e) { return e.memoryPeakGib; }), decimals(1),
         "Peak memory per GPU on the worst stage"},
        {"Fits in HBM", "", Better::Higher, false,
         evaluated([](const E& e) { return e.fitsInMemory ? 1 : 0; }),
         [](double v) { return v > 0.5 ? QStringLiteral("yes") : QStringLiteral("no (OOM)"); },
         "Whether the peak memory fits in the GPU's HBM"},
        {"Capex (M USD)", "M USD", Better::Lower, true,
         evaluated([](const E& e) { return e.networkCapexUsd / 1e6; }), significant3,
         "Network capital expense: switches, NICs, optics, cables, DCI"},
        {"Power (kW)", "kW", Better::Lower, true,
         evaluated([](const E& e) { return e.networkPowerW / 1e3; }), significant3,
         "Network power"},
        // In days for the deltas, printed with a unit that suits the span ("418 s", "75.6 days").
        {"Time to train", "", Better::Lower, true,
         evaluated([](const E& e) { return e.timeToTrainS / 86400.0; }),
         [](double days) { return formatTimeSpan(days * 86400.0); },
         "Time to train the workload's token budget"},
        {"With failures", "", Better::Lower, true,
         evaluated([](const E& e) { return e.goodput.effectiveTimeToTrainS / 86400.0; }),
         [](double days) { return formatTimeSpan(days * 86400.0); },
         "Time to train once interruptions, checkpoints and restarts are counted "
         "(docs/goodput.md)"},
        {"Convergence (× steps)", "×", Better::Lower, true,
         evaluated([](const E& e) { return e.datacenterSync.computeMultiplier; }), decimals(3),
         "Steps to reach synchronous training's loss over its own: above 1 with DiLoCo "
         "(docs/loose-sync.md)"},
        {"ETTR (%)", "%", Better::Higher, true,
         evaluated([](const E& e) { return 100.0 * e.goodput.ettr; }), decimals(1),
         "Effective training time ratio: failure-free time to train ÷ time with failures"},
        {"Interruptions (/day)", "/day", Better::Lower, true,
         evaluated([](const E& e) { return e.goodput.interruptionsPerDay; }), decimals(2),
         "Unexpected interruptions a day from the job's failure domains: GPUs and hosts, NIC "
         "ports and switches, DCI fibre and wavelengths, buildings (docs/goodput.md)"},
        {"DCI interruptions (/day)", "/day", Better::Lower, true,
         evaluated([](const E& e) { return e.goodput.dciInterruptionsPerDay; }), decimals(4),
         "Fibre cuts and wavelength losses that stop the job: a hop's only route without "
         "optical protection (docs/goodput.md, \"Failure domains\")"},
        {"Run cost (M USD)", "M USD", Better::Lower, true,
         evaluated([](const E& e) { return e.runCost.effectiveRunCostUsd / 1e6; }), significant3,
         "What the run with failures costs: the cluster's cost per hour (hardware over its "
         "service life, colocation, energy) times the time with failures (docs/run-cost.md)"},
    };
    rows.append(results);
    for (const BreakdownPart& part : breakdownParts()) {
        const auto member = part.seconds;
        rows.append({part.name + QStringLiteral(" (s)"), "s", Better::Lower, true,
                     evaluated([member](const E& e) { return e.breakdown.*member; }), decimals(3),
                     QStringLiteral("%1 per iteration on the busiest pipeline rank, in seconds")
                         .arg(part.name)});
    }
    return rows;
}

} // namespace

QString ComparisonRow::textFor(const EvaluatedDesign& point) const
{
    if (text) {
        const Text t = text(point);
        return t ? *t : QStringLiteral("—");
    }
    const Value v = value ? value(point) : std::nullopt;
    return v && format ? format(*v) : QStringLiteral("—");
}

std::optional<double> ComparisonRow::numberFor(const EvaluatedDesign& point) const
{
    return !text && value ? value(point) : std::nullopt;
}

QStringList boundaryCrossings(const core::Scenario& s)
{
    // Per unordered pair of datacenters, the dimensions crossing it, in a fixed order.
    std::map<std::pair<core::Id, core::Id>, std::set<int>> crossings;
    const auto mark = [&crossings](core::Id a, core::Id b, core::ParallelDim dim) {
        if (a != b)
            crossings[{std::min(a, b), std::max(a, b)}].insert(static_cast<int>(dim));
    };
    const auto& shards = s.placement.shards;
    for (std::size_t i = 0; i < shards.size(); ++i) {
        const core::PlacementShard& shard = shards[i];
        // PP: consecutive stages of one pipeline in different datacenters.
        for (std::size_t k = 1; k < shard.stageDatacenters.size(); ++k)
            mark(shard.stageDatacenters[k - 1], shard.stageDatacenters[k], core::ParallelDim::Pp);
        // TP or CP: a split shard spreads each group over its datacenters.
        for (std::size_t a = 0; shard.split() && a < shard.splitDatacenters.size(); ++a)
            for (std::size_t b = a + 1; b < shard.splitDatacenters.size(); ++b)
                mark(shard.splitDatacenters[a], shard.splitDatacenters[b], shard.splitDim);
        // DP: the same stage in another shard's other datacenter (gradient reduction).
        for (std::size_t j = i + 1; j < shards.size(); ++j) {
            const auto& other = shards[j].stageDatacenters;
            for (std::size_t k = 0; k < shard.stageDatacenters.size() && k < other.size(); ++k)
                mark(shard.stageDatacenters[k], other[k], core::ParallelDim::Dp);
        }
        // DP within a shard across a split: replicas share the split's datacenters already.
    }
    static const std::pair<core::ParallelDim, const char*> kNames[] = {
        {core::ParallelDim::Tp, "TP"}, {core::ParallelDim::Cp, "CP"}, {core::ParallelDim::Ep, "EP"},
        {core::ParallelDim::Pp, "PP"}, {core::ParallelDim::Dp, "DP"},
    };
    QStringList out;
    for (const auto& [pair, dims] : crossings) {
        QStringList names;
        for (const auto& [dim, name] : kNames)
            if (dims.count(static_cast<int>(dim)))
                names.append(QLatin1String(name));
        out.append(QStringLiteral("%1 ↔ %2: %3")
                       .arg(datacenterName(s, pair.first), datacenterName(s, pair.second),
                            names.join(QStringLiteral(" + "))));
    }
    return out;
}

const QList<ComparisonRow>& comparisonRows()
{
    static const QList<ComparisonRow> rows = makeRows();
    return rows;
}

} // namespace archipelago::views
