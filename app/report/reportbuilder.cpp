// The report's first sections (reportbuilder.h): the title block, the executive summary, the
// drawings, the plots, the breakdown and memory tables, the bill of materials and the
// comparison of the pinned design points. Figures come from core's Evaluation; nothing here
// computes a cost.
#include "report/reportbuilder.h"

#include "common/colors.h"
#include "common/format.h"
#include "plots/plotstyle.h"
#include "report/reportfigures.h"
#include "tables/comparisontablerows.h"
#include "tables/evaluationsummary.h"

#include "evaluation/costmodel.h"
#include "model/scenariotemplates.h"
#include "validation/builtinvalidation.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QMap>

#include <algorithm>
#include <map>
#include <set>

namespace archipelago::report {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

// A design built up from File > New Empty Document keeps the empty document's name and
// description ("Empty", "one 8-GPU domain") until the user writes their own: once the design
// is no longer that document, those words describe something else.
bool startersWordsOutgrown(const core::Scenario& s)
{
    static const core::Scenario starter = core::minimalScenario();
    return s.name == starter.name && s.description == starter.description &&
           (s.topology != starter.topology || s.workload != starter.workload);
}

// The scenario's name, or what it is when it has none of its own: "llama3-405b on 24,576 GPUs
// in 3 datacenters".
QString scenarioTitle(const core::Scenario& s)
{
    if (!s.name.empty() && !startersWordsOutgrown(s))
        return q(s.name);
    const std::size_t dcs = s.topology.datacenters.size();
    const QString model = s.workload.name.empty() ? QStringLiteral("a model") : q(s.workload.name);
    const QString what = QStringLiteral("%1 on %2 in %3")
                             .arg(model, views::formatGpus(core::totalGpus(s.topology)),
                                  dcs == 1 ? QStringLiteral("1 datacenter")
                                           : QStringLiteral("%1 datacenters").arg(dcs));
    return s.name.empty() ? QStringLiteral("untitled scenario (%1)").arg(what) : what;
}

QString scheduleText(const core::Scenario& s)
{
    QString text = q(core::toString(s.schedule.kind));
    if (s.schedule.kind == core::ScheduleKind::Interleaved1F1B)
        text += QStringLiteral(" (v = %1)").arg(s.parallelism.virtualStages);
    if (s.schedule.extraInFlightAtDci > 0)
        text += QStringLiteral(", +%1 micro-batches in flight at the DCI")
                    .arg(s.schedule.extraInFlightAtDci);
    return text;
}

// Warning codes in the order a director should read them: what invalidates the result first,
// then what costs the most time.
int warningRank(core::WarningCode code)
{
    using C = core::WarningCode;
    static const std::vector<C> order{C::Invalid,
                                      C::InternalError,
                                      C::NonFinite,
                                      C::OutOfMemory,
                                      C::PlacementInvalid,
                                      C::UnknownAccelerator,
                                      C::CatalogMissing,
                                      C::DegreesDoNotDivide,
                                      C::DciUnreachable,
                                      C::DciReach,
                                      C::ParallelDciLinks,
                                      C::FabricOverCapacity,
                                      C::TpCrossesDc,
                                      C::CpCrossesDc,
                                      C::EpCrossesDc,
                                      C::DciExposed,
                                      C::DciTransportBound,
                                      C::DciShared,
                                      C::TpExceedsScaleUp,
                                      C::Bubble,
                                      C::DpExposed,
                                      C::TpExposed,
                                      C::PpCrossesDc,
                                      C::Pipeline,
                                      C::RailOnlyForwarding,
                                      C::SpareGpus,
                                      C::CheckpointInterval,
                                      C::MemoryHeadroom,
                                      C::InterleavingFallback,
                                      C::VirtualStagesIgnored};
    const auto it = std::find(order.begin(), order.end(), code);
    return static_cast<int>(it - order.begin());
}

// The seconds a warning says it costs: the largest of its "_s" figures (0 when none).
double warningSeconds(const core::Warning& w)
{
    double seconds = 0.0;
    for (const core::WarningValue& v : w.data)
        if (v.key.ends_with("_s") && std::holds_alternative<double>(v.value))
            seconds = std::max(seconds, std::get<double>(v.value));
    return seconds;
}

// What makes the result wrong first (the codes up to FabricOverCapacity in warningRank), then
// what costs the most time per iteration, then the code order.
bool moreImportant(const core::Warning* a, const core::Warning* b)
{
    const int serious = warningRank(core::WarningCode::FabricOverCapacity);
    const int ra = warningRank(a->code), rb = warningRank(b->code);
    if ((ra <= serious) != (rb <= serious))
        return ra <= serious;
    if (ra <= serious)
        return ra < rb;
    const double sa = warningSeconds(*a), sb = warningSeconds(*b);
    if (sa != sb)
        return sa > sb;
    return ra < rb;
}

// The evaluation's warnings, most important first (moreImportant).
std::vector<const core::Warning*> sortedWarnings(const core::Evaluation& e)
{
    std::vector<const core::Warning*> sorted;
    for (const core::Warning& w : e.warnings)
        sorted.push_back(&w);
    std::stable_sort(sorted.begin(), sorted.end(), moreImportant);
    return sorted;
}

} // namespace

ReportBlock paragraph(const QString& text, ReportBlock::Kind kind)
{
    ReportBlock b;
    b.kind = kind;
    b.text = text;
    return b;
}

ReportBlock tableBlock(ReportTable table)
{
    // A review reads a few hundred rows; beyond them (a scenario may hold 100,000 DCI links,
    // which once made a 3,852-page PDF) the table says how many it leaves to the data export.
    // A last row with marks is the table's total: it stays, after the count.
    constexpr qsizetype kMaxRows = 300;
    if (table.rows.size() > kMaxRows) {
        const bool hasTotal =
            table.marks.size() == table.rows.size() && !table.marks.back().isEmpty();
        const QStringList total = hasTotal ? table.rows.back() : QStringList();
        const QList<CellMark> totalMarks = hasTotal ? table.marks.back() : QList<CellMark>();
        const qsizetype kept = kMaxRows - (hasTotal ? 2 : 1);
        const qsizetype hidden = table.rows.size() - kept - (hasTotal ? 1 : 0);
        table.rows.resize(kept);
        if (table.marks.size() > kept)
            table.marks.resize(kept);
        QStringList note(std::max<qsizetype>(1, table.headers.size()));
        note.front() = QStringLiteral("… %1 more rows (File > Export Data has them all)")
                           .arg(views::formatCount(static_cast<std::int64_t>(hidden)));
        table.rows.append(note);
        if (hasTotal) {
            table.marks.resize(table.rows.size());
            table.rows.append(total);
            table.marks.append(totalMarks);
        }
    }
    ReportBlock b;
    b.kind = ReportBlock::Kind::Table;
    b.table = std::move(table);
    return b;
}

QColor pinColor(const std::string& own, int index)
{
    // The window's colours (views/common/colors.h), so that a report from the CLI looks like
    // one from the window.
    const QColor c(q(own));
    if (!own.empty() && c.isValid())
        return c;
    return views::pinPaletteColor(std::max(0, index));
}

QColor currentPointColor()
{
    return views::currentDesignColor();
}

QStringList topWarnings(const core::Evaluation& e, int count)
{
    // The most serious warning of each kind first, so that three warnings about three stages
    // crossing the same link do not hide a memory or reach problem; then the rest in order.
    const std::vector<const core::Warning*> sorted = sortedWarnings(e);
    QStringList out;
    std::set<core::WarningCode> seen;
    for (const core::Warning* w : sorted)
        if (out.size() < count && seen.insert(w->code).second)
            out.append(q(core::warningText(*w)));
    for (const core::Warning* w : sorted) {
        const QString text = q(core::warningText(*w));
        if (out.size() < count && !out.contains(text))
            out.append(text);
    }
    return out;
}

QString crossingSentence(const core::Scenario& s)
{
    // The comparison table's reading of the placement (views::boundaryCrossings), worded:
    // "building-a ↔ building-b: PP + DP" becomes "PP + DP cross the building-a ↔ building-b
    // boundary".
    // Pairs with the same dimensions are named together: "DP crosses the a ↔ b, a ↔ c and
    // b ↔ c boundaries".
    QStringList dimsOrder;
    QMap<QString, QStringList> pairsByDims;
    for (const QString& crossing : views::boundaryCrossings(s)) {
        const QString dims = crossing.section(QStringLiteral(": "), 1);
        if (!pairsByDims.contains(dims))
            dimsOrder.append(dims);
        pairsByDims[dims].append(crossing.section(QStringLiteral(": "), 0, 0));
    }
    QStringList parts;
    for (const QString& dims : dimsOrder) {
        QStringList pairs = pairsByDims.value(dims);
        QString named = pairs.takeLast();
        if (!pairs.isEmpty())
            named = pairs.join(QStringLiteral(", ")) + QStringLiteral(" and ") + named;
        parts.append(
            QStringLiteral("%1 %2 the %3 boundar%4")
                .arg(dims, dims.contains('+') ? QStringLiteral("cross") : QStringLiteral("crosses"),
                     named,
                     pairsByDims.value(dims).size() > 1 ? QStringLiteral("ies")
                                                        : QStringLiteral("y")));
    }
    if (parts.isEmpty())
        return s.topology.datacenters.size() > 1
                   ? QStringLiteral("no parallel dimension crosses a datacenter boundary")
                   : QString();
    return parts.join(QStringLiteral("; "));
}

QStringList rankedWarnings(const core::Evaluation& e)
{
    // The most important first; beyond a page or two, a count (see tableBlock).
    constexpr std::size_t kMaxWarnings = 100;
    const std::vector<const core::Warning*> sorted = sortedWarnings(e);
    QStringList out;
    for (std::size_t i = 0; i < sorted.size() && i < kMaxWarnings; ++i)
        out.append(q(core::warningText(*sorted[i])));
    if (sorted.size() > kMaxWarnings)
        out.append(
            QStringLiteral("… %1 more warnings (the window and evaluate --json list them "
                           "all)")
                .arg(views::formatCount(static_cast<std::int64_t>(sorted.size() - kMaxWarnings))));
    return out;
}

ReportSection summarySection(const ReportInput& input)
{
    const core::Scenario& s = input.current.scenario;
    const core::Evaluation& e = input.current.evaluation;
    ReportSection section{
        QStringLiteral("summary"), QStringLiteral("Executive summary"), {}, false};

    // The design point in one sentence.
    QStringList used;
    const std::vector<std::int64_t> placed = core::placedGpusPerDatacenter(s);
    for (std::size_t i = 0; i < s.topology.datacenters.size(); ++i)
        if (i < placed.size() && placed[i] > 0)
            used.append(q(s.topology.datacenters[i].name));
    QStringList accelerators;
    for (const core::Datacenter& dc : s.topology.datacenters)
        if (!accelerators.contains(q(dc.accelerator)))
            accelerators.append(q(dc.accelerator));
    const core::Parallelism& par = s.parallelism;
    QString sentence =
        QStringLiteral("%1 trained on %2 %3 GPUs in %4 datacenter%5 (%6) with TP %7 · CP %8 · "
                       "PP %9 · DP %10 · EP %11, schedule %12")
            .arg(s.workload.name.empty() ? QStringLiteral("The model") : q(s.workload.name),
                 views::formatCount(e.gpus > 0 ? e.gpus : core::totalGpus(s.topology)),
                 accelerators.join(QStringLiteral("/")), QString::number(used.size()),
                 used.size() == 1 ? QString() : QStringLiteral("s"),
                 used.join(QStringLiteral(", ")))
            .arg(par.tp)
            .arg(par.cp)
            .arg(par.pp)
            .arg(QString::number(core::dataParallel(s)))
            .arg(par.ep)
            .arg(scheduleText(s));
    const QString crossing = crossingSentence(s);
    sentence += crossing.isEmpty() ? QStringLiteral(".") : QStringLiteral("; ") + crossing + ".";
    section.blocks.push_back(paragraph(sentence));

    if (!e.ok) {
        section.blocks.push_back(paragraph(
            QStringLiteral("The model could not evaluate this design point; the warnings below "
                           "say why. The figures in this report are not meaningful until they "
                           "are resolved.")));
    }
    ReportBlock figures;
    figures.kind = ReportBlock::Kind::KeyFigures;
    auto add = [&figures](const QString& label, const QString& value) {
        figures.items.append(label + '\t' + value);
    };
    add(QStringLiteral("Iteration time"), views::formatSeconds(e.iterationTimeS));
    add(QStringLiteral("MFU"), views::formatPercent(e.mfu));
    add(QStringLiteral("Tokens per second"), views::formatWholeNumber(e.tokensPerS));
    add(QStringLiteral("Time to train (%1 T tokens)")
            .arg(views::formatNumber(s.workload.trainTokens / 1e12, 1)),
        views::formatTimeSpan(e.timeToTrainS));
    add(QStringLiteral("GPU-hours to train"), views::formatWholeNumber(e.gpuHoursToTrain));
    add(QStringLiteral("With failures (ETTR)"),
        QStringLiteral("%1 (%2, %3 interruptions/day)")
            .arg(views::formatTimeSpan(e.goodput.effectiveTimeToTrainS),
                 views::formatPercent(e.goodput.ettr),
                 views::formatNumber(e.goodput.interruptionsPerDay, 1)));
    if (e.runCost.priced)
        add(QStringLiteral("Run cost with failures"),
            QStringLiteral("%1 (%2 per GPU-hour)")
                .arg(views::formatUsd(e.runCost.effectiveRunCostUsd),
                     views::formatUsd(e.runCost.usdPerGpuHour)));
    add(QStringLiteral("Network capex"), views::formatUsd(e.networkCapexUsd));
    add(QStringLiteral("Network power"), views::formatPower(e.networkPowerW));
    add(QStringLiteral("Memory peak per GPU"),
        QStringLiteral("%1 of %2 — %3")
            .arg(views::formatNumber(e.memoryPeakGib, 1), views::formatGib(e.hbmGib),
                 !e.fitsInMemory                                  ? QStringLiteral("DOES NOT FIT")
                 : views::memoryFit(e) == views::MemoryFit::Tight ? QStringLiteral("tight")
                                                                  : QStringLiteral("fits")));
    section.blocks.push_back(figures);

    const QStringList warnings = rankedWarnings(e);
    ReportBlock top;
    top.kind = ReportBlock::Kind::Bullets;
    top.items = topWarnings(e, 3);
    section.blocks.push_back(paragraph(
        warnings.isEmpty() ? QStringLiteral("The model raised no warning for this design point.")
                           : QStringLiteral("The most important of the model's %1 warning%2:")
                                 .arg(warnings.size())
                                 .arg(warnings.size() == 1 ? "" : "s")));
    if (!top.items.isEmpty())
        section.blocks.push_back(top);
    if (warnings.size() > 3) {
        QStringList others;
        for (const QString& w : warnings)
            if (!top.items.contains(w))
                others.append(w);
        section.blocks.push_back(
            paragraph(QStringLiteral("Other warnings: ") + others.join(QStringLiteral(" · ")),
                      ReportBlock::Kind::Note));
    }
    // How far to trust the figures (the last section has the runs), and what the scenario is
    // about in its author's words.
    section.blocks.push_back(
        paragraph(QStringLiteral("Model accuracy on published training runs: %1.")
                      .arg(q(core::validationSummaryText(core::builtinValidationSummary()))),
                  ReportBlock::Kind::Note));
    if (!s.description.empty() && !startersWordsOutgrown(s)) {
        section.blocks.push_back(
            paragraph(QStringLiteral("About this scenario"), ReportBlock::Kind::Heading));
        section.blocks.push_back(paragraph(q(s.description), ReportBlock::Kind::Note));
    }
    return section;
}

ReportSection drawingsSection(const ReportInput& input)
{
    ReportSection section{
        QStringLiteral("drawings"), QStringLiteral("Topology and parallelism layout"), {}, true};
    ReportBlock topo;
    topo.kind = ReportBlock::Kind::Figures;
    topo.figures.push_back(topologyFigure(input.current.scenario));
    section.blocks.push_back(topo);
    ReportBlock layout;
    layout.kind = ReportBlock::Kind::Figures;
    layout.figures.push_back(layoutFigure(input.current.scenario, input.current.evaluation));
    section.blocks.push_back(layout);
    return section;
}

ReportSection plotsSection(const ReportInput& input)
{
    ReportSection section{QStringLiteral("plots"), QStringLiteral("Design-point plots"), {}, false};
    section.blocks.push_back(paragraph(
        input.pinned.isEmpty()
            ? QStringLiteral("The current design point; pinned points would appear beside it.")
            : QStringLiteral("The %1 pinned design point%2, then the current one (rightmost bar).")
                  .arg(input.pinned.size())
                  .arg(input.pinned.size() == 1 ? "" : "s"),
        ReportBlock::Kind::Note));
    const QList<views::EvaluatedDesign> points =
        views::orderedDesignPoints(input.pinned, input.current);
    if (points.size() <= 4) {
        // Two by two, each half the text width: at about 0.7 scale the plots' 8-9 pt text
        // prints at 6 pt.
        std::vector<ReportFigure> figures = plotFigures(points, QSize(500, 320));
        for (std::size_t i = 0; i < figures.size(); i += 2) {
            ReportBlock row;
            row.kind = ReportBlock::Kind::Figures;
            for (std::size_t j = i; j < std::min(i + 2, figures.size()); ++j)
                row.figures.push_back(std::move(figures[j]));
            section.blocks.push_back(std::move(row));
        }
    } else {
        // More bars than a third of a page shows legibly: one plot per row, full width.
        for (ReportFigure& figure : plotFigures(points, QSize(900, 340))) {
            ReportBlock plot;
            plot.kind = ReportBlock::Kind::Figures;
            plot.figures.push_back(std::move(figure));
            section.blocks.push_back(std::move(plot));
        }
    }
    return section;
}

ReportSection tablesSection(const ReportInput& input)
{
    const core::Evaluation& e = input.current.evaluation;
    ReportSection section{
        QStringLiteral("tables"), QStringLiteral("Iteration time and memory"), {}, false};
    ReportTable breakdown;
    breakdown.caption = QStringLiteral("Iteration-time breakdown (critical path of one iteration)");
    breakdown.headers = {QStringLiteral("Part"), QStringLiteral("Time"),
                         QStringLiteral("Share of iteration")};
    breakdown.rightAligned = {false, true, true};
    double sum = 0.0;
    for (const views::BreakdownPart& part : views::breakdownParts()) {
        const double v = e.breakdown.*part.seconds;
        sum += v;
        if (v <= 0.0)
            continue;
        breakdown.rows.append({part.name, views::formatSeconds(v),
                               e.iterationTimeS > 0 ? views::formatPercent(v / e.iterationTimeS)
                                                    : QStringLiteral("—")});
    }
    breakdown.rows.append(
        {QStringLiteral("Iteration time"), views::formatSeconds(e.iterationTimeS),
         views::formatPercent(e.iterationTimeS > 0 ? sum / e.iterationTimeS : 0.0)});
    breakdown.marks.resize(breakdown.rows.size());
    breakdown.marks.back() = {CellMark::Strong, CellMark::Strong, CellMark::Strong};
    section.blocks.push_back(tableBlock(breakdown));

    ReportTable memory;
    memory.caption = QStringLiteral("Memory per GPU on the worst pipeline stage (stage %1, %2 "
                                    "micro-batches in flight)")
                         .arg(e.memory.worstStage)
                         .arg(e.memory.inFlightMicroBatches);
    memory.headers = {QStringLiteral("Part"), QStringLiteral("Memory"),
                      QStringLiteral("Share of HBM")};
    memory.rightAligned = {false, true, true};
    const std::pair<const char*, double> parts[] = {{"Weights", e.memory.weightsGib},
                                                    {"Gradients", e.memory.gradientsGib},
                                                    {"Optimizer state", e.memory.optimizerGib},
                                                    {"Activations", e.memory.activationsGib},
                                                    {"Buffers and reserve", e.memory.otherGib}};
    auto share = [&e](double gib) {
        return e.hbmGib > 0 ? views::formatPercent(gib / e.hbmGib) : QStringLiteral("—");
    };
    for (const auto& [name, gib] : parts)
        memory.rows.append({QLatin1String(name), views::formatGib(gib), share(gib)});
    memory.rows.append(
        {QStringLiteral("Peak"), views::formatGib(e.memoryPeakGib), share(e.memoryPeakGib)});
    memory.rows.append({QStringLiteral("HBM capacity"), views::formatGib(e.hbmGib),
                        !e.fitsInMemory ? QStringLiteral("does not fit")
                        : views::memoryFit(e) == views::MemoryFit::Tight
                            ? QStringLiteral("tight: see the warnings")
                            : QStringLiteral("fits")});
    memory.marks.resize(memory.rows.size());
    const CellMark fit = e.fitsInMemory ? CellMark::Better : CellMark::Worse;
    memory.marks[memory.rows.size() - 2] = {CellMark::Strong, CellMark::Strong, CellMark::Strong};
    memory.marks.back() = {CellMark::None, CellMark::None, fit};
    section.blocks.push_back(tableBlock(memory));
    return section;
}

ReportSection bomSection(const ReportInput& input)
{
    const core::Evaluation& e = input.current.evaluation;
    ReportSection section{QStringLiteral("bom"), QStringLiteral("Bill of materials"), {}, false};
    if (e.bom.empty()) {
        section.blocks.push_back(
            paragraph(QStringLiteral("The evaluation priced no network equipment.")));
        return section;
    }
    section.blocks.push_back(paragraph(
        QStringLiteral(
            "Network equipment per datacenter and per DCI link: %1 in total, drawing %2. "
            "Unit prices are catalog assumptions (see the assumptions ledger).")
            .arg(views::formatUsd(e.networkCapexUsd), views::formatPower(e.networkPowerW)),
        ReportBlock::Kind::Note));
    // Scopes in the order the model lists them: the datacenters, then the links; grouped in
    // one pass (a scenario may hold 100,000 links).
    std::vector<std::string> scopes;
    std::map<std::string, std::vector<const core::BomItem*>> itemsOf;
    for (const core::BomItem& item : e.bom) {
        auto& items = itemsOf[item.scope];
        if (items.empty())
            scopes.push_back(item.scope);
        items.push_back(&item);
    }
    const auto isLink = [](const std::string& scope) { return scope.starts_with("dci"); };
    const auto links = std::count_if(scopes.begin(), scopes.end(), isLink);
    // A table per link while they fit on a few pages; beyond, one row per link.
    constexpr std::ptrdiff_t kMaxLinkTables = 16;
    ReportTable linkSummary;
    linkSummary.caption = QStringLiteral("DCI links (%1)").arg(links);
    linkSummary.headers = {QStringLiteral("Link"), QStringLiteral("Items"), QStringLiteral("Capex"),
                           QStringLiteral("Power")};
    linkSummary.rightAligned = {false, true, true, true};
    for (const std::string& scope : scopes) {
        double capex = 0.0, power = 0.0;
        for (const core::BomItem* item : itemsOf[scope]) {
            capex += item->capexUsd();
            power += item->powerW();
        }
        if (isLink(scope) && links > kMaxLinkTables) {
            linkSummary.rows.append(
                {q(scope.substr(4)),
                 views::formatCount(static_cast<std::int64_t>(itemsOf[scope].size())),
                 views::formatUsd(capex), views::formatPower(power)});
            continue;
        }
        ReportTable t;
        t.caption = isLink(scope) ? QStringLiteral("DCI link: ") + q(scope.substr(4))
                                  : QStringLiteral("Datacenter: ") + q(scope);
        t.headers = {QStringLiteral("Item"),       QStringLiteral("Category"),
                     QStringLiteral("Detail"),     QStringLiteral("Count"),
                     QStringLiteral("Unit price"), QStringLiteral("Capex"),
                     QStringLiteral("Power")};
        t.rightAligned = {false, false, false, true, true, true, true};
        for (const core::BomItem* item : itemsOf[scope])
            t.rows.append({q(item->item), views::bomCategoryLabel(q(item->category)),
                           q(item->detail), views::formatCount(item->count),
                           views::formatUsd(item->unitPriceUsd), views::formatUsd(item->capexUsd()),
                           views::formatPower(item->powerW())});
        t.rows.append({QStringLiteral("Subtotal"),
                       {},
                       {},
                       {},
                       {},
                       views::formatUsd(capex),
                       views::formatPower(power)});
        t.marks.resize(t.rows.size());
        t.marks.back() = QList<CellMark>(7, CellMark::Strong);
        section.blocks.push_back(tableBlock(t));
    }
    if (!linkSummary.rows.isEmpty())
        section.blocks.push_back(tableBlock(linkSummary));
    return section;
}

ReportSection comparisonSection(const ReportInput& input)
{
    ReportSection section{
        QStringLiteral("comparison"), QStringLiteral("Pinned design points compared"), {}, false};
    if (input.pinned.isEmpty()) {
        section.blocks.push_back(paragraph(
            QStringLiteral("No design point is pinned. Pin alternatives in the window (Edit > Pin "
                           "Design Point) and save: the file keeps them and this section compares "
                           "them with the current point.")));
        return section;
    }
    section.blocks.push_back(paragraph(
        QStringLiteral("Each value against the current design point (last column): green is "
                       "better, red is worse, bold differs without a better direction."),
        ReportBlock::Kind::Note));
    // At most kColumns points per table so that the values stay on one line; each table
    // ends with the current point, the reference of the marks.
    constexpr int kColumns = 5;
    const int pinnedPerTable = kColumns - 1;
    const int tables =
        std::max(1, static_cast<int>((input.pinned.size() + pinnedPerTable - 1) / pinnedPerTable));
    for (int chunk = 0; chunk < tables; ++chunk) {
        QList<views::EvaluatedDesign> subset =
            input.pinned.mid(chunk * pinnedPerTable, pinnedPerTable);
        subset.append(input.current);
        ReportTable table = comparisonTable(subset);
        if (tables > 1)
            table.caption = QStringLiteral("Pinned points %1–%2 of %3 against the current point")
                                .arg(chunk * pinnedPerTable + 1)
                                .arg(chunk * pinnedPerTable + subset.size() - 1)
                                .arg(input.pinned.size());
        section.blocks.push_back(tableBlock(table));
    }
    return section;
}

ReportTable comparisonTable(const QList<views::EvaluatedDesign>& points)
{
    const views::EvaluatedDesign& baseline = points.back();
    ReportTable t;
    t.headers.append(QStringLiteral("Metric"));
    t.rightAligned.append(false);
    for (const views::EvaluatedDesign& p : points) {
        t.headers.append(p.name.isEmpty() ? QStringLiteral("(unnamed)") : p.name);
        t.rightAligned.append(true);
    }
    for (const views::ComparisonRow& row : views::comparisonRows()) {
        QStringList cells{row.label};
        QList<CellMark> marks{CellMark::None};
        const std::optional<double> base = row.numberFor(baseline);
        const QString baseText = row.textFor(baseline);
        for (int i = 0; i < points.size(); ++i) {
            const views::EvaluatedDesign& p = points[i];
            QString text = row.textFor(p);
            const std::optional<double> v = row.numberFor(p);
            CellMark mark = CellMark::None;
            const bool isBaseline = i == points.size() - 1;
            // As in the window's table: two values that print the same are not flagged.
            if (!isBaseline && v && base && *v != *base && text != baseText) {
                if (row.relativeDelta && *base != 0.0)
                    text += QStringLiteral(" (%1%2%)")
                                .arg(*v > *base ? "+" : "")
                                .arg(views::formatNumber(100.0 * (*v / *base - 1.0), 1));
                if (row.better != views::Better::Neutral)
                    mark = ((*v < *base) == (row.better == views::Better::Lower)) ? CellMark::Better
                                                                                  : CellMark::Worse;
                else
                    mark = CellMark::Strong;
            } else if (!isBaseline && !v && text != baseText) {
                mark = CellMark::Strong; // a text row that differs ("PP" against "DP")
            }
            cells.append(text);
            marks.append(mark);
        }
        t.rows.append(cells);
        t.marks.append(marks);
    }
    return t;
}

QStringList reportSectionTitles(bool withSweep)
{
    QStringList titles{
        QStringLiteral("Executive summary"),  QStringLiteral("Topology and parallelism layout"),
        QStringLiteral("Design-point plots"), QStringLiteral("Iteration time and memory"),
        QStringLiteral("Bill of materials"),  QStringLiteral("Pinned design points compared")};
    if (withSweep)
        titles.append(QStringLiteral("Design-space sweep"));
    titles.append({QStringLiteral("Reliability and goodput"), QStringLiteral("Assumptions ledger"),
                   QStringLiteral("Model validation")});
    return titles;
}

Report buildReport(const ReportInput& input)
{
    Report report;
    const core::Scenario& s = input.current.scenario;
    report.title = QStringLiteral("Capacity-planning review: %1").arg(scenarioTitle(s));
    report.titleLines.append(
        QStringLiteral("Generated %1 by Archipelago %2")
            .arg(input.generatedAt.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'")),
                 QStringLiteral(ARCHIPELAGO_VERSION)));
    const QString sha = QString::fromLatin1(
        QCryptographicHash::hash(input.fileBytes, QCryptographicHash::Sha256).toHex());
    report.titleLines.append(
        input.fileName.isEmpty()
            ? QStringLiteral("Input: unsaved document (SHA-256 of its saved form %1)").arg(sha)
            : QStringLiteral("Input: %1").arg(QFileInfo(input.fileName).fileName()));
    if (!input.fileName.isEmpty())
        report.titleLines.append(
            input.unsavedChanges
                ? QStringLiteral("SHA-256 of the document with its unsaved changes: %1").arg(sha)
                : QStringLiteral("SHA-256: %1").arg(sha));

    report.sections.push_back(summarySection(input));
    report.sections.push_back(drawingsSection(input));
    report.sections.push_back(plotsSection(input));
    report.sections.push_back(tablesSection(input));
    report.sections.push_back(bomSection(input));
    report.sections.push_back(comparisonSection(input));
    if (input.sweep)
        report.sections.push_back(sweepSection(*input.sweep));
    report.sections.push_back(goodputSection(input));
    report.sections.push_back(assumptionsSection(input));
    report.sections.push_back(validationSection());
    return report;
}

} // namespace archipelago::report
