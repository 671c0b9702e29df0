#include "tables/evaluationsummary.h"

#include "common/format.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QListWidget>
#include <QStyle>
#include <QVBoxLayout>

#include <algorithm>

namespace archipelago::views {

namespace {

void setColoured(QLabel* label, const QString& text, const char* colour)
{
    label->setText(colour ? QStringLiteral("<span style=\"color:%1\">%2</span>")
                                .arg(QLatin1String(colour), text.toHtmlEscaped())
                          : text.toHtmlEscaped());
}

void clearForm(QFormLayout* form)
{
    while (form->rowCount() > 0)
        form->removeRow(0);
}

} // namespace

EvaluationSummary::EvaluationSummary(QWidget* parent)
    : QWidget(parent)
    , m_state(new QLabel(this))
    , m_warnings(new QListWidget(this))
{
    auto* figures = new QGroupBox(tr("Design point"), this);
    auto* form = new QFormLayout(figures);
    form->setLabelAlignment(Qt::AlignLeft);
    m_iteration = addFigure(form, tr("Iteration time"));
    m_tokens = addFigure(form, tr("Throughput"));
    m_mfu = addFigure(form, tr("MFU / HFU"));
    // What the time figures rest on: the built-in efficiency parameters or the user's fit.
    m_calibration = addFigure(form, tr("Calibration"));
    m_bubble = addFigure(form, bubbleRatioName());
    m_bubble->setToolTip(bubbleRatioToolTip());
    if (QWidget* name = form->labelForField(m_bubble))
        name->setToolTip(bubbleRatioToolTip());
    m_memory = addFigure(form, tr("Memory peak"));
    m_capex = addFigure(form, tr("Network capex"));
    m_power = addFigure(form, tr("Network power"));
    m_train = addFigure(form, tr("Time to train"));
    m_effective = addFigure(form, tr("With failures"));
    m_runCost = addFigure(form, tr("Run cost"));
    m_sync = addFigure(form, tr("Across datacenters"));
    m_gpus = addFigure(form, tr("GPUs"));

    auto* breakdownBox = new QGroupBox(tr("Iteration breakdown"), this);
    breakdownBox->setToolTip(
        tr("Seconds per iteration on the busiest pipeline rank, and their share of the "
           "iteration time.\n\"Pipeline idle\" is that rank's idle time in the pipeline: a "
           "share of the iteration, not the bubble ratio (idle ÷ makespan averaged over "
           "stages)."));
    m_breakdown = new QFormLayout(breakdownBox);

    auto* warningsBox = new QGroupBox(tr("Warnings"), this);
    auto* warningsLayout = new QVBoxLayout(warningsBox);
    m_warnings->setWordWrap(true);
    m_warnings->setSelectionMode(QAbstractItemView::NoSelection);
    m_warnings->setFocusPolicy(Qt::NoFocus);
    warningsLayout->addWidget(m_warnings);

    m_state->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_state);
    layout->addWidget(figures);
    layout->addWidget(breakdownBox);
    layout->addWidget(warningsBox, 1);
    clear();
}

QLabel* EvaluationSummary::addFigure(QFormLayout* form, const QString& name)
{
    auto* value = new QLabel(this);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A narrow dock wraps a long figure ("71.2 days (27,984,370 GPU-hours)") rather than cut it.
    value->setWordWrap(true);
    QFont bold = value->font();
    bold.setBold(true);
    value->setFont(bold);
    form->addRow(name + QLatin1Char(':'), value);
    m_figures.append({name, value});
    return value;
}

void EvaluationSummary::clear()
{
    m_hasEvaluation = false;
    for (const auto& figure : std::as_const(m_figures))
        figure.second->setText(QStringLiteral("—"));
    clearForm(m_breakdown);
    m_warnings->clear();
    m_warningCount = 0;
    m_state->setText(tr("Not evaluated yet."));
}

void EvaluationSummary::setPending(bool pending)
{
    if (pending)
        m_state->setText(m_hasEvaluation ? tr("Evaluating… (figures below are for the "
                                              "previous design point)")
                                         : tr("Evaluating…"));
    else if (m_hasEvaluation)
        m_state->setText(tr("Up to date."));
}

MemoryFit memoryFit(const core::Evaluation& e)
{
    if (!e.fitsInMemory)
        return MemoryFit::OutOfMemory;
    const bool tight =
        std::any_of(e.warnings.begin(), e.warnings.end(), [](const core::Warning& w) {
            return w.code == core::WarningCode::MemoryHeadroom;
        });
    return tight ? MemoryFit::Tight : MemoryFit::Fits;
}

void EvaluationSummary::setEvaluation(const core::Evaluation& e)
{
    m_hasEvaluation = true;
    m_state->setText(e.ok ? tr("Up to date.")
                          : tr("The model could not evaluate this design point; see the "
                               "warnings."));
    const char* bad = "#c62828";
    const char* good = "#2e7d32";
    m_iteration->setText(e.ok ? formatSeconds(e.iterationTimeS) : QStringLiteral("—"));
    // A word joiner (U+2060) keeps "tokens/s" whole when the figure wraps.
    m_tokens->setText(e.ok ? tr("%1 tokens/\u2060s").arg(formatWholeNumber(e.tokensPerS))
                           : QStringLiteral("—"));
    m_mfu->setText(e.ok ? QStringLiteral("%1 / %2").arg(formatPercent(e.mfu), formatPercent(e.hfu))
                        : QStringLiteral("—"));
    m_bubble->setText(e.ok ? formatBubbleRatio(e.bubbleRatio) : QStringLiteral("—"));
    if (e.ok) {
        // Amber when it fits only with little allocator fragmentation.
        const MemoryFit fit = memoryFit(e);
        const QString memory = tr("%1 of %2 — %3")
                                   .arg(formatGib(e.memoryPeakGib), formatGib(e.hbmGib),
                                        fit == MemoryFit::OutOfMemory ? tr("out of memory")
                                        : fit == MemoryFit::Tight     ? tr("tight")
                                                                      : tr("fits"));
        setColoured(m_memory, memory,
                    fit == MemoryFit::OutOfMemory ? bad
                    : fit == MemoryFit::Tight     ? "#b26a00"
                                                  : good);
    } else {
        m_memory->setText(QStringLiteral("—"));
    }
    // Whose efficiency parameters the figures rest on, and how well they predict runs the fit
    // did not see (model/calibration.h).
    if (const std::optional<core::Calibration>& c = e.calibration) {
        m_calibration->setText(tr("%1 runs, leave-one-out error %2")
                                   .arg(c->runs)
                                   .arg(formatPercent(c->leaveOneOutMeanError)));
        m_calibration->setToolTip(QString::fromStdString(core::calibrationSummary(*c)) +
                                  tr("\nFrom %1.").arg(QString::fromStdString(c->file)));
    } else {
        m_calibration->setText(tr("built-in"));
        m_calibration->setToolTip(
            tr("The catalog's efficiency parameters, calibrated on published runs (Help > "
               "About gives the error). File > Calibrate from Measured Runs… fits them on "
               "yours."));
    }
    m_capex->setText(formatUsd(e.networkCapexUsd));
    m_power->setText(formatPower(e.networkPowerW));
    m_train->setText(e.ok && e.timeToTrainS > 0.0 ? tr("%1 (%2 GPU-hours)")
                                                        .arg(formatTimeSpan(e.timeToTrainS),
                                                             formatGpuHours(e.gpuHoursToTrain))
                                                  : QStringLiteral("—"));
    const core::Goodput& g = e.goodput;
    const bool effective = e.ok && g.effectiveTimeToTrainS > 0.0;
    m_effective->setText(
        effective
            ? tr("%1 (ETTR %2)").arg(formatTimeSpan(g.effectiveTimeToTrainS), formatPercent(g.ettr))
            : QStringLiteral("—"));
    QString effectiveTip =
        effective
            ? tr("%1 unexpected interruptions per day: servers %2, fabric %3, DCI %4, "
                 "buildings %5 (the catalog's rates on this topology's failure domains); "
                 "a restart of %6 each, checkpoints at Daly's interval. ETTR: useful time "
                 "over wall time.")
                  .arg(formatNumber(g.interruptionsPerDay, 1),
                       formatNumber(g.serverInterruptionsPerDay, 2),
                       formatNumber(g.fabricInterruptionsPerDay, 2),
                       formatNumber(g.dciInterruptionsPerDay, 3),
                       formatNumber(g.buildingInterruptionsPerDay, 3), formatTimeSpan(g.restartS))
            : QString();
    if (effective && g.degradedS > 0.0)
        effectiveTip += tr("\n%1 running slower while a spine, core switch or wavelength is "
                           "repaired (at most).")
                            .arg(formatTimeSpan(g.degradedS));
    const core::DatacenterSyncResult& sync = e.datacenterSync;
    const bool loose = e.ok && sync.scheme != core::DatacenterSync::Synchronous;
    if (loose && effective)
        effectiveTip += tr("\nIncludes %1 of extra steps to reach synchronous training's loss; "
                           "an interruption stops %2 of the job (its datacenter).")
                            .arg(formatTimeSpan(g.convergenceS), formatPercent(g.stalledShare));
    m_effective->setToolTip(effectiveTip);
    const core::RunCost& c = e.runCost;
    const bool priced = effective && c.priced && c.usdPerHour > 0.0;
    m_runCost->setText(priced
                           ? tr("%1 (%2 per GPU-hour)")
                                 .arg(formatUsd(c.effectiveRunCostUsd), formatUsd(c.usdPerGpuHour))
                           : QStringLiteral("—"));
    m_runCost->setToolTip(
        !priced    ? tr("The catalog has no economics assumptions: the run is not priced.")
        : c.rented ? tr("A rented cluster at %1 per GPU-hour, for the time to train with failures.")
                         .arg(formatUsd(c.usdPerGpuHour))
                   : tr("The cluster costs %1 an hour for the time to train with failures: %2 of "
                        "hardware (%3 of GPUs, servers and network over its service life), %4 of "
                        "colocation and %5 of energy for %6 of IT load.")
                         .arg(formatUsd(c.usdPerHour), formatUsd(c.ownershipUsdPerHour),
                              formatUsd(c.capexUsd), formatUsd(c.facilityUsdPerHour),
                              formatUsd(c.energyUsdPerHour), formatPower(c.itPowerW)));
    if (loose) {
        const QString scheme =
            sync.scheme == core::DatacenterSync::DiLoCo ? tr("DiLoCo") : tr("Streaming DiLoCo");
        m_sync->setText(tr("%1, M %2, H %3: %4× steps")
                            .arg(scheme, formatCount(sync.replicas), formatCount(sync.innerSteps),
                                 formatNumber(sync.computeMultiplier, 2)));
        m_sync->setToolTip(
            tr("%6 datacenter replicas (M). Outer all-reduce over the DCI: %1 every %2 steps, "
               "%3 exposed per step on "
               "average. Loss at equal tokens %4× synchronous training's (Charles et al. 2025), "
               "so %5× the steps to reach it.")
                .arg(formatTimeSpan(sync.outerStepS), formatCount(sync.innerSteps),
                     formatTimeSpan(sync.outerExposedS), formatNumber(sync.lossRatio, 4),
                     formatNumber(sync.computeMultiplier, 3), formatCount(sync.replicas)));
    } else {
        m_sync->setText(e.ok ? tr("synchronous") : QStringLiteral("—"));
        m_sync->setToolTip(tr("Every step's gradients cross the datacenters' links."));
    }
    m_gpus->setText(formatCount(e.gpus));
    setBreakdown(e);

    m_warnings->clear();
    m_warningCount = static_cast<int>(e.warnings.size());
    const QIcon icon = style()->standardIcon(QStyle::SP_MessageBoxWarning);
    for (const core::Warning& w : e.warnings)
        m_warnings->addItem(
            new QListWidgetItem(icon, QString::fromStdString(core::warningText(w))));
    if (e.warnings.empty())
        m_warnings->addItem(tr("No warnings."));
}

void EvaluationSummary::setBreakdown(const core::Evaluation& e)
{
    clearForm(m_breakdown);
    if (!e.ok)
        return;
    const core::Breakdown& b = e.breakdown;
    const std::pair<QString, double> parts[] = {
        {tr("Forward"), b.forwardS},
        {tr("Backward"), b.backwardS},
        {tr("Recompute"), b.recomputeS},
        {tr("Pipeline idle"), b.bubbleS},
        {tr("Exposed TP comm."), b.tpCommS},
        {tr("Exposed CP comm."), b.cpCommS},
        {tr("Exposed EP comm."), b.epCommS},
        {tr("Exposed PP comm."), b.ppCommS},
        {tr("Exposed DP comm."), b.dpCommS},
        {tr("Optimizer"), b.optimizerS},
        {tr("Interference"), b.interferenceS},
        {tr("Variability"), b.variabilityS},
        {tr("Per-iteration overhead"), b.overheadS},
    };
    for (const auto& [name, seconds] : parts) {
        if (seconds <= 0.0)
            continue; // parts that cost nothing in this design point only add noise
        const double share = e.iterationTimeS > 0.0 ? seconds / e.iterationTimeS : 0.0;
        auto* value = new QLabel(
            tr("%1  (%2 of iteration)").arg(formatSeconds(seconds), formatPercent(share)), this);
        value->setWordWrap(true);
        m_breakdown->addRow(name + QLatin1Char(':'), value);
    }
}

QString EvaluationSummary::figure(const QString& name) const
{
    for (const auto& figure : m_figures)
        if (figure.first == name)
            return figure.second->text();
    return {};
}

QString EvaluationSummary::figureToolTip(const QString& name) const
{
    for (const auto& figure : m_figures)
        if (figure.first == name)
            return figure.second->toolTip();
    return {};
}

int EvaluationSummary::warningCount() const
{
    return m_warningCount;
}

} // namespace archipelago::views
