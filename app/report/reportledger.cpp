// The assumptions ledger and the validation section (reportbuilder.h): every catalog figure
// the evaluation used, with its source and whether the scenario overrides it, and the model's
// error on the built-in published runs (core/validation/builtinvalidation.h).
#include "report/reportbuilder.h"

#include "common/format.h"
#include "plots/plotstyle.h"

#include "evaluation/goodput.h"
#include "io/scenarioio.h"
#include "validation/builtinvalidation.h"

#include <QFileInfo>

#include <algorithm>
#include <cmath>
#include <set>

namespace archipelago::report {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

struct Figure
{
    QString name;
    double value = 0.0;
    QString text; // formatted
    bool price = false;
};

QString num(double v, int decimals = 2)
{
    return views::formatNumber(v, decimals);
}

// One catalog entry's rows: the figures of the effective entry, each marked "set in scenario"
// where the scenario's override differs from the built-in entry (or the built-in has none).
template <typename Spec>
void addEntry(ReportTable& t, ReportTable& sources, const QString& kind, const Spec* builtin,
              const Spec* override, const std::function<std::vector<Figure>(const Spec&)>& figures)
{
    const Spec* effective = override ? override : builtin;
    if (!effective)
        return;
    sources.rows.append(
        {kind + QStringLiteral(": ") + q(effective->name),
         q(effective->source.empty() ? std::string("(no source given)") : effective->source)});
    const std::vector<Figure> mine = figures(*effective);
    const std::vector<Figure> base = builtin ? figures(*builtin) : std::vector<Figure>{};
    for (std::size_t i = 0; i < mine.size(); ++i) {
        const bool overridden =
            override && (!builtin || i >= base.size() || base[i].value != mine[i].value);
        QString status =
            overridden ? QStringLiteral("set in scenario") : QStringLiteral("catalog default");
        if (mine[i].price)
            status += QStringLiteral(" · editable assumption");
        t.rows.append({i == 0 ? kind + QStringLiteral(": ") + q(effective->name) : QString(),
                       mine[i].name, mine[i].text, status});
        t.marks.append({i == 0 ? CellMark::Strong : CellMark::None, CellMark::None, CellMark::None,
                        overridden ? CellMark::Worse : CellMark::None});
    }
}

std::vector<Figure> acceleratorFigures(const core::AcceleratorSpec& a)
{
    const core::EfficiencyParams& e = a.efficiency;
    return {
        {"Peak dense BF16", a.peakTflopsBf16, num(a.peakTflopsBf16, 0) + " TFLOPS"},
        {"Peak dense FP8", a.peakTflopsFp8, num(a.peakTflopsFp8, 0) + " TFLOPS"},
        {"HBM", a.hbmGib, views::formatGib(a.hbmGib)},
        {"HBM bandwidth", a.hbmGBps, num(a.hbmGBps, 0) + " GB/s"},
        {"Scale-up bandwidth", a.scaleUpGBpsPerDirection,
         num(a.scaleUpGBpsPerDirection, 0) + " GB/s each way"},
        {"Scale-up domain", static_cast<double>(a.scaleUpDomainGpus),
         QString::number(a.scaleUpDomainGpus) + " GPUs"},
        {"Default NIC", a.nicGbps, views::formatGbps(a.nicGbps)},
        {"Power", a.watts, views::formatPower(a.watts)},
        {"Price", a.priceUsd, views::formatUsd(a.priceUsd), true},
        {"GEMM peak efficiency", e.gemmPeakEfficiency, num(e.gemmPeakEfficiency, 3)},
        {"GEMM half-efficiency size", e.gemmHalfDim, num(e.gemmHalfDim, 0)},
        {"Memory-bound efficiency", e.memoryBoundEfficiency, num(e.memoryBoundEfficiency, 3)},
        {"TP/CP comm. interference", e.commInterference, num(e.commInterference, 3)},
        {"DP comm. interference", e.dpCommInterference, num(e.dpCommInterference, 3)},
        {"EP comm. interference", e.epCommInterference, num(e.epCommInterference, 3)},
        {"Kernel overhead", e.kernelOverheadS, views::formatSeconds(e.kernelOverheadS)},
        {"Scale-up bus efficiency", e.scaleUpBusEfficiency, num(e.scaleUpBusEfficiency, 2)},
        {"Scale-out bus efficiency", e.scaleOutBusEfficiency, num(e.scaleOutBusEfficiency, 2)},
    };
}

std::vector<Figure> nicFigures(const core::NicSpec& n)
{
    return {{"Bandwidth", n.gbps, views::formatGbps(n.gbps)},
            {"Power", n.watts, views::formatPower(n.watts)},
            {"Price", n.priceUsd, views::formatUsd(n.priceUsd), true}};
}

std::vector<Figure> switchFigures(const core::SwitchSpec& s)
{
    return {{"Radix", static_cast<double>(s.radix), QString::number(s.radix) + " ports"},
            {"Port speed", s.portGbps, views::formatGbps(s.portGbps)},
            {"Power", s.watts, views::formatPower(s.watts)},
            {"Price", s.priceUsd, views::formatUsd(s.priceUsd), true}};
}

std::vector<Figure> opticFigures(const core::OpticSpec& o)
{
    return {
        {"Rate", o.gbps, views::formatGbps(o.gbps)},
        {"Reach", o.maxReachM,
         o.maxReachM >= 1000 ? views::formatKm(o.maxReachM / 1000.0) : num(o.maxReachM, 0) + " m"},
        {"Power", o.watts, views::formatPower(o.watts)},
        {"Price", o.priceUsd, views::formatUsd(o.priceUsd), true}};
}

std::vector<Figure> lineSystemFigures(const core::LineSystemSpec& l)
{
    return {
        {"Amplifier spacing", l.amplifierSpacingKm, views::formatKm(l.amplifierSpacingKm)},
        {"Amplifier price", l.amplifierPriceUsd, views::formatUsd(l.amplifierPriceUsd), true},
        {"Amplifier power", l.amplifierWatts, views::formatPower(l.amplifierWatts)},
        {"Terminal price (per end)", l.terminalPriceUsd, views::formatUsd(l.terminalPriceUsd),
         true},
        {"Terminal power", l.terminalWatts, views::formatPower(l.terminalWatts)},
        {"Wavelengths", static_cast<double>(l.maxWavelengths), QString::number(l.maxWavelengths)},
        {"Reach", l.maxReachKm, views::formatKm(l.maxReachKm)}};
}

} // namespace

namespace {

// The building sets its own energy price, PUE or colocation rate (0: the catalog's).
bool hasOwnSite(const core::Datacenter& dc)
{
    return dc.electricityUsdPerKwh > 0.0 || dc.pue > 0.0 || dc.facilityUsdPerKwMonth > 0.0;
}

// What the run costs (evaluation/runcost.h): the cost per hour by part, the run's total with
// and without failures, and the assumptions with their sources.
void appendRunCost(ReportSection& section, const core::Scenario& s, const core::Evaluation& e,
                   const core::EconomicsAssumptions& a, bool overridden)
{
    const core::RunCost& c = e.runCost;
    const core::Goodput& g = e.goodput;
    const bool ownSite =
        std::any_of(s.topology.datacenters.begin(), s.topology.datacenters.end(), hasOwnSite);
    section.blocks.push_back(paragraph(
        c.rented
            ? QStringLiteral("What the run costs on a rented cluster: %1 per GPU-hour, %2 per "
                             "hour for %3 GPUs, so %4 for the run with failures (%5 without).")
                  .arg(views::formatUsd(c.usdPerGpuHour), views::formatUsd(c.usdPerHour),
                       views::formatCount(e.gpus), views::formatUsd(c.effectiveRunCostUsd),
                       views::formatUsd(c.runCostUsd))
            : QStringLiteral("What the run costs on an owned cluster: the hardware (%1 of GPUs, "
                             "servers and network) written off over %2 years, a colocation rate "
                             "and the energy for %3 of IT load at %4. The cluster "
                             "costs %5 per hour (%6 per GPU-hour), so %7 for the run with "
                             "failures (%8 without).")
                  .arg(views::formatUsd(c.capexUsd), num(a.serviceLifeYears, 1),
                       views::formatPower(c.itPowerW),
                       ownSite ? QStringLiteral("each building's PUE and energy price (below)")
                               : QStringLiteral("a PUE of %1").arg(num(a.pue, 2)),
                       views::formatUsd(c.usdPerHour), views::formatUsd(c.usdPerGpuHour),
                       views::formatUsd(c.effectiveRunCostUsd), views::formatUsd(c.runCostUsd))));
    if (!c.rented) {
        ReportTable t;
        t.caption = QStringLiteral("The cluster's cost per hour");
        t.headers = {QStringLiteral("Part"), QStringLiteral("USD per hour"),
                     QStringLiteral("Over the run with failures")};
        t.rightAligned = {false, true, true};
        const double hours = g.effectiveTimeToTrainS / 3600.0;
        const std::pair<QString, double> parts[] = {
            {QStringLiteral("Hardware over its service life"), c.ownershipUsdPerHour},
            {QStringLiteral("Colocation"), c.facilityUsdPerHour},
            {QStringLiteral("Energy"), c.energyUsdPerHour}};
        for (const auto& [name, usd] : parts)
            t.rows.append({name, views::formatUsd(usd), views::formatUsd(usd * hours)});
        t.marks = QList<QList<CellMark>>(t.rows.size());
        t.rows.append({QStringLiteral("Total"), views::formatUsd(c.usdPerHour),
                       views::formatUsd(c.effectiveRunCostUsd)});
        t.marks.append({CellMark::Strong, CellMark::Strong, CellMark::Strong});
        section.blocks.push_back(tableBlock(t));
    }
    ReportBlock sources;
    sources.kind = ReportBlock::Kind::Bullets;
    const QString where =
        overridden ? QStringLiteral(" (set in the scenario's catalog)") : QString();
    if (c.rented)
        sources.items = {QStringLiteral("Rental: %1 USD per GPU-hour%2 (%3).")
                             .arg(num(a.rentalUsdPerGpuHour, 2), where, q(a.rentalSource))};
    else
        sources.items = {QStringLiteral("Service life: %1 years%2 (%3).")
                             .arg(num(a.serviceLifeYears, 1), where, q(a.serviceLifeSource)),
                         QStringLiteral("Server beyond the GPU: %1 USD per GPU (%2).")
                             .arg(num(a.hostPriceUsdPerGpu, 0), q(a.hostPriceSource)),
                         QStringLiteral("Server power: %1 x the GPUs' TDP at full load (%2).")
                             .arg(num(a.serverPowerOverGpuTdp, 2), q(a.serverPowerSource)),
                         QStringLiteral("Colocation: %1 USD per kW of IT load and month (%2).")
                             .arg(num(a.facilityUsdPerKwMonth, 2), q(a.facilitySource)),
                         QStringLiteral("PUE: %1 (%2).").arg(num(a.pue, 2), q(a.pueSource)),
                         QStringLiteral("Electricity: %1 USD per kWh (%2).")
                             .arg(num(a.electricityUsdPerKwh, 4), q(a.electricitySource))};
    // A building's own site figures replace the catalog's for that building (set in the
    // scenario).
    if (!c.rented)
        for (const core::Datacenter& dc : s.topology.datacenters)
            if (hasOwnSite(dc))
                sources.items.append(
                    QStringLiteral("Site of %1 (set in the scenario): %2 USD per kWh, a PUE of "
                                   "%3, %4 USD per kW-month of colocation.")
                        .arg(q(dc.name),
                             num(dc.electricityUsdPerKwh > 0.0 ? dc.electricityUsdPerKwh
                                                               : a.electricityUsdPerKwh,
                                 4),
                             num(dc.pue > 0.0 ? dc.pue : a.pue, 2),
                             num(dc.facilityUsdPerKwMonth > 0.0 ? dc.facilityUsdPerKwMonth
                                                                : a.facilityUsdPerKwMonth,
                                 2)));
    section.blocks.push_back(sources);
}

} // namespace

ReportSection goodputSection(const ReportInput& input)
{
    const core::Scenario& s = input.current.scenario;
    const core::Evaluation& e = input.current.evaluation;
    const core::Goodput& g = e.goodput;
    const core::Catalog catalog = core::effectiveCatalog(s);
    const core::ReliabilityAssumptions& a = core::reliabilityOf(catalog);
    const bool overridden = s.catalogOverrides.reliability.has_value();
    ReportSection section{
        QStringLiteral("goodput"), QStringLiteral("Reliability and goodput"), {}, false};
    const bool daly = s.workload.checkpointIntervalS <= 0.0;
    const auto span = [](double seconds) {
        return std::isfinite(seconds) ? views::formatTimeSpan(seconds) : QStringLiteral("never");
    };
    section.blocks.push_back(paragraph(
        QStringLiteral("The run as it goes with failures (docs/goodput.md). %1 unexpected "
                       "interruptions a day are expected on %2 GPUs (one every %3). A checkpoint "
                       "of %4 TB is taken every %5 (%6), %7 and blocks training %8 each; a "
                       "restart takes %9. The effective training time ratio is %10: %11 of "
                       "training take %12 with failures.")
            .arg(num(g.interruptionsPerDay, 1), views::formatCount(e.gpus), span(g.mtbfS),
                 num(g.checkpointBytes / 1e12, 1), span(g.checkpointIntervalS),
                 daly ? QStringLiteral("Daly's optimum") : QStringLiteral("the job's interval"),
                 s.workload.checkpointAsynchronous ? QStringLiteral("asynchronously")
                                                   : QStringLiteral("synchronously"),
                 views::formatSeconds(g.checkpointBlockingS), views::formatSeconds(g.restartS),
                 views::formatPercent(g.ettr), span(e.timeToTrainS),
                 span(g.effectiveTimeToTrainS))));
    section.blocks.push_back(paragraph(
        QStringLiteral("By failure domain, per day: %1 interruptions from servers, %2 from the "
                       "fabric, %3 from the DCI and %4 from buildings; %5 failures slow the job "
                       "without stopping it (%6 over the run, at most) and %7 neither stop nor "
                       "slow it.")
            .arg(num(g.serverInterruptionsPerDay, 2), num(g.fabricInterruptionsPerDay, 2),
                 num(g.dciInterruptionsPerDay, 4), num(g.buildingInterruptionsPerDay, 4),
                 num(g.degradationsPerDay, 3), span(g.degradedS), num(g.absorbedPerDay, 4))));
    if (s.workload.checkpointRemoteReplica)
        section.blocks.push_back(paragraph(
            std::isfinite(g.replicaS)
                ? QStringLiteral("Each checkpoint is copied to another building: %1 TB cross the "
                                 "DCI in %2, in what training leaves of its links, before the "
                                 "next checkpoint.")
                      .arg(num(g.replicaBytes / 1e12, 2), views::formatSeconds(g.replicaS))
                : QStringLiteral("A copy of each checkpoint in another building is asked, but it "
                                 "cannot be made (see the warnings): it is not counted.")));

    ReportTable split;
    split.caption = QStringLiteral("Where the wall time goes");
    split.headers = {QStringLiteral("Part"), QStringLiteral("Time"), QStringLiteral("Share")};
    split.rightAligned = {false, true, true};
    const double wall = g.effectiveTimeToTrainS;
    // The parts the goodput plot stacks, in its order.
    for (const views::GoodputPart& part : views::goodputParts()) {
        const double seconds = g.*part.seconds;
        if ((part.seconds == &core::Goodput::convergenceS ||
             part.seconds == &core::Goodput::degradedS) &&
            seconds <= 0.0)
            continue; // synchronous training has no convergence cost; nothing may degrade
        split.rows.append({part.name, span(seconds),
                           wall > 0.0 ? views::formatPercent(seconds / wall) : QString()});
    }
    split.marks = QList<QList<CellMark>>(split.rows.size());
    split.rows.append({QStringLiteral("Wall time"), span(wall), QStringLiteral("100%")});
    split.marks.append({CellMark::Strong, CellMark::Strong, CellMark::Strong});
    section.blocks.push_back(tableBlock(split));

    ReportTable rates;
    rates.caption = overridden
                        ? QStringLiteral("Failure rates (set in the scenario's catalog)")
                        : QStringLiteral("Failure rates (the catalog's, each with its source)");
    rates.headers = {QStringLiteral("Cause"),
                     QStringLiteral("Per"),
                     QStringLiteral("Rate per unit-day"),
                     QStringLiteral("Units in this job"),
                     QStringLiteral("This job per day"),
                     QStringLiteral("What it does here"),
                     QStringLiteral("Source")};
    rates.rightAligned = {false, false, true, true, true, false, false};
    // What the topology makes of each cause (evaluation/goodput.cpp, failureExposures).
    const core::TopologyModel topology(s.topology, catalog, core::TopologyModel::Ownership::Borrow,
                                       false);
    const std::vector<core::FailureExposure> exposures =
        e.ok ? core::failureExposures(s, e, a, topology) : std::vector<core::FailureExposure>{};
    for (std::size_t i = 0; i < a.causes.size(); ++i) {
        const core::FailureCause& c = a.causes[i];
        double units = 0.0;
        double perDay = 0.0;
        bool stops = false, protectedRoute = false, trainOn = false;
        double repairS = 0.0, slowdown = -1.0, slowS = 0.0;
        for (const core::FailureExposure& x : exposures) {
            if (x.cause != i)
                continue;
            units += x.units;
            perDay += x.perDay;
            if (x.absorbed) {
                (x.protectedRoute ? protectedRoute : trainOn) = true;
            } else if (x.effect == core::FailureEffect::Degrade) {
                slowdown = std::max(slowdown, x.slowdown);
                slowS = x.repairS;
            } else {
                stops = true;
                repairS = std::max(repairS, x.repairS);
            }
        }
        QStringList effects;
        if (stops)
            effects.append(repairS > 0.0 ? QStringLiteral("stops the job until repaired (%1)")
                                               .arg(views::formatTimeSpan(repairS))
                                         : QStringLiteral("stops the job"));
        if (slowdown >= 0.0)
            effects.append(
                QStringLiteral("slows it at most %1 for %2")
                    .arg(views::formatPercent(slowdown, 2), views::formatTimeSpan(slowS)));
        if (protectedRoute)
            effects.append(QStringLiteral("nothing: the protected route takes over"));
        if (trainOn)
            effects.append(QStringLiteral("nothing: the buildings train on"));
        rates.rows.append({q(c.name), q(core::toString(c.unit)),
                           QString::number(c.perUnitPerDay(), 'g', 3), num(units, 0),
                           num(perDay, 3),
                           effects.isEmpty() ? QStringLiteral("not in this job")
                                             : effects.join(QStringLiteral("; ")),
                           q(c.source)});
    }
    section.blocks.push_back(tableBlock(rates));

    ReportBlock others;
    others.kind = ReportBlock::Kind::Bullets;
    others.items = {
        QStringLiteral("Checkpoint storage: %1 GB/s write, %2 GB/s read per datacenter (%3).")
            .arg(num(a.storageWriteGBps, 0), num(a.storageReadGBps, 0), q(a.storageSource)),
        QStringLiteral("Checkpoint size: %1 bytes per parameter (%2).")
            .arg(num(a.checkpointBytesPerParam, 0), q(a.checkpointSource)),
        QStringLiteral("Copy to host memory for an asynchronous checkpoint: %1 GB/s per GPU (%2).")
            .arg(num(a.deviceToHostGBps, 0), q(a.deviceToHostSource)),
        QStringLiteral("Restart before reading the checkpoint: %1 on %2 GPUs (%3).")
            .arg(views::formatSeconds(a.relaunchS +
                                      core::communicatorInitS(a, static_cast<double>(e.gpus))),
                 views::formatCount(e.gpus), q(a.restartSource))};
    // A building's own storage replaces the catalog's for that building (set in the scenario).
    for (const core::Datacenter& dc : s.topology.datacenters)
        if (dc.storageWriteGBps > 0.0 || dc.storageReadGBps > 0.0)
            others.items.append(
                QStringLiteral("Checkpoint storage of %1 (set in the scenario): %2 GB/s write, "
                               "%3 GB/s read.")
                    .arg(
                        q(dc.name),
                        num(dc.storageWriteGBps > 0.0 ? dc.storageWriteGBps : a.storageWriteGBps,
                            0),
                        num(dc.storageReadGBps > 0.0 ? dc.storageReadGBps : a.storageReadGBps, 0)));
    section.blocks.push_back(others);
    if (catalog.economics && e.runCost.priced)
        appendRunCost(section, s, e, *catalog.economics, s.catalogOverrides.economics.has_value());
    return section;
}

ReportSection assumptionsSection(const ReportInput& input)
{
    const core::Scenario& s = input.current.scenario;
    const core::Evaluation& e = input.current.evaluation;
    ReportSection section{
        QStringLiteral("assumptions"), QStringLiteral("Assumptions ledger"), {}, false};
    section.blocks.push_back(paragraph(
        QStringLiteral("Every catalog figure this evaluation used (resources/catalog.json, with "
                       "the scenario's overrides). Prices are editable assumptions; a figure "
                       "marked \"set in scenario\" differs from the built-in catalog."),
        ReportBlock::Kind::Note));

    // The entries the scenario names and the ones its bill of materials priced.
    std::set<std::string> names;
    for (const core::Datacenter& dc : s.topology.datacenters) {
        names.insert(dc.accelerator);
        names.insert(dc.fabric.switchModel);
        names.insert(dc.fabric.nicModel);
    }
    for (const core::DciLink& l : s.topology.links) {
        names.insert(l.optic);
        names.insert(l.lineSystem);
    }
    for (const core::BomItem& item : e.bom)
        names.insert(item.item);
    names.erase(std::string());

    const core::Catalog& builtin = core::builtinCatalog();
    const core::Catalog& over = s.catalogOverrides;
    ReportTable t;
    t.headers = {QStringLiteral("Entry"), QStringLiteral("Figure"), QStringLiteral("Value"),
                 QStringLiteral("Status")};
    t.rightAligned = {false, false, true, false};
    ReportTable sources;
    sources.caption = QStringLiteral("Sources of the catalog entries");
    sources.headers = {QStringLiteral("Entry"), QStringLiteral("Source")};
    // A calibrated accelerator's figures are the effective catalog's (its fitted parameters).
    const core::Catalog effective = core::effectiveCatalog(s);
    const std::optional<core::Calibration>& calibration = e.calibration;
    for (const std::string& n : names)
        addEntry<core::AcceleratorSpec>(
            t, sources, QStringLiteral("Accelerator"), builtin.accelerator(n),
            calibration && calibration->accelerator == n ? effective.accelerator(n)
                                                         : over.accelerator(n),
            acceleratorFigures);
    for (const std::string& n : names)
        addEntry<core::NicSpec>(t, sources, QStringLiteral("NIC"), builtin.nic(n), over.nic(n),
                                nicFigures);
    for (const std::string& n : names)
        addEntry<core::SwitchSpec>(t, sources, QStringLiteral("Switch"), builtin.switchSpec(n),
                                   over.switchSpec(n), switchFigures);
    for (const std::string& n : names)
        addEntry<core::OpticSpec>(t, sources, QStringLiteral("Optic"), builtin.optic(n),
                                  over.optic(n), opticFigures);
    for (const std::string& n : names)
        addEntry<core::LineSystemSpec>(t, sources, QStringLiteral("Line system"),
                                       builtin.lineSystem(n), over.lineSystem(n),
                                       lineSystemFigures);
    if (t.rows.isEmpty())
        section.blocks.push_back(paragraph(QStringLiteral("The scenario uses no catalog entry.")));
    else {
        section.blocks.push_back(tableBlock(t));
        section.blocks.push_back(tableBlock(sources));
    }

    if (calibration) {
        QStringList fitted;
        for (const auto& [name, value] : calibration->fitted)
            fitted << QStringLiteral("%1 %2").arg(q(name), num(value, 3));
        section.blocks.push_back(paragraph(
            QStringLiteral("Calibration: %1, from %2 (%3; the catalog's figures they replace "
                           "are marked \"set in scenario\" above). The leave-one-out error is "
                           "each measured run predicted by a fit on the others: read the "
                           "figures of this report with that margin.")
                .arg(q(core::calibrationSummary(*calibration)), q(calibration->file),
                     fitted.join(QStringLiteral(", ")))));
    }
    if (!e.assumptions.empty()) {
        ReportBlock model;
        model.kind = ReportBlock::Kind::Bullets;
        for (const std::string& a : e.assumptions)
            model.items.append(q(a));
        section.blocks.push_back(
            paragraph(QStringLiteral("Choices the model made"), ReportBlock::Kind::Heading));
        section.blocks.push_back(model);
    }
    return section;
}

ReportSection validationSection()
{
    ReportSection section{
        QStringLiteral("validation"), QStringLiteral("Model validation"), {}, false};
    const std::optional<core::ValidationSummary> summary = core::builtinValidationSummary();
    if (!summary) {
        section.blocks.push_back(paragraph(
            QStringLiteral("Validation data not built in: this build of Archipelago was made "
                           "without the published runs, so the model's error is not stated.")));
        return section;
    }
    section.blocks.push_back(paragraph(
        QStringLiteral("The same model predicted the iteration time of published training runs "
                       "(A100 and H100, Megatron-LM, MegaScale and NeMo): %1. Read the figures "
                       "above with that margin.")
            .arg(q(core::validationSummaryText(summary)))));
    ReportTable t;
    t.headers = {QStringLiteral("Run"), QStringLiteral("Source"), QStringLiteral("Measured"),
                 QStringLiteral("Predicted"), QStringLiteral("Error")};
    t.rightAligned = {false, false, true, true, true};
    for (const core::ValidationFileSummary& f : summary->files) {
        for (std::size_t i = 0; i < f.report.runs.size(); ++i) {
            const core::RunComparison& r = f.report.runs[i];
            const QString source = i < f.runs.size() ? q(f.runs[i].source) : QString();
            QString error = r.ok ? views::formatNumber(100.0 * r.error, 1) + QStringLiteral(" %")
                                 : QStringLiteral("not evaluated");
            if (r.ok && r.error >= 0)
                error.prepend('+');
            t.rows.append({q(r.id), source, views::formatSeconds(r.measuredS),
                           r.ok ? views::formatSeconds(r.predictedS) : QStringLiteral("—"), error});
            const CellMark mark =
                !r.ok || std::abs(r.error) > 0.10 ? CellMark::Worse : CellMark::None;
            t.marks.append({CellMark::None, CellMark::None, CellMark::None, CellMark::None, mark});
        }
        for (const core::Diagnostic& d : f.errors)
            t.rows.append({q(f.file), q(d.toString()), {}, {}, QStringLiteral("not read")});
    }
    t.rows.append({QStringLiteral("Mean absolute error"),
                   {},
                   {},
                   {},
                   views::formatNumber(100.0 * summary->meanAbsError, 1) + QStringLiteral(" %")});
    t.rows.append({QStringLiteral("Largest absolute error"),
                   {},
                   {},
                   {},
                   views::formatNumber(100.0 * summary->maxAbsError, 1) + QStringLiteral(" %")});
    while (t.marks.size() < t.rows.size())
        t.marks.append(QList<CellMark>(5, CellMark::Strong));
    section.blocks.push_back(tableBlock(t));
    return section;
}

} // namespace archipelago::report
