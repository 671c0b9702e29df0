#include "explorepanel.h"

#include "changevalue.h"
#include "document.h"
#include "editcontroller.h"
#include "evaluation/costmodel.h"
#include "explore/spaceodometer.h"
#include "explore/spacereader.h"
#include "explore/sweepjson.h"
#include "format.h"
#include "io/jsondocument.h"
#include "paretoscatter.h"
#include "sweeptoptable.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSplitter>
#include <QUndoStack>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>

namespace archipelago::app {

namespace {

using Json = core::Json;

constexpr int kTop = 10;
constexpr double kMillion = 1e6;
const QColor kPreviewColor(0xff, 0x7f, 0x0e);

// A dimension of the space as the editor shows it.
struct DimensionInfo
{
    const char* key; // the --space key (explore/spacereader.h)
    const char* label;
    const char* hint;
};

const std::array<DimensionInfo, 19> kDimensionInfo{{
    {core::spacekeys::kTp, "TP", "Tensor-parallel degrees, e.g. 1, 2, 4, 8"},
    {core::spacekeys::kCp, "CP", "Context-parallel degrees"},
    {core::spacekeys::kPp, "PP", "Pipeline stages"},
    {core::spacekeys::kEp, "EP", "Expert-parallel degrees (MoE models)"},
    {core::spacekeys::kDp, "DP", "Data-parallel degrees, or max (the largest that fits)"},
    {core::spacekeys::kMicroBatch, "Micro-batch", "Sequences per micro-batch"},
    {core::spacekeys::kVirtualStages, "Virtual stages",
     "Model chunks per rank (interleaved schedules)"},
    {core::spacekeys::kSchedule, "Schedule",
     "gpipe, 1f1b, interleaved-1f1b, zb-h1, zb-h2, dualpipe, ..."},
    {core::spacekeys::kExtraInFlight, "Extra in flight at DCI",
     "Extra warm-up forwards of the cross-DC-aware schedule"},
    {core::spacekeys::kRecompute, "Recompute", "none, selective, full"},
    {core::spacekeys::kSequenceParallel, "Sequence parallel", "on, off"},
    {core::spacekeys::kZeroStage, "ZeRO stage", "0, 1, 2, 3"},
    {core::spacekeys::kDistributedOptimizer, "Distributed optimizer", "on, off"},
    {core::spacekeys::kBoundary, "Across datacenters",
     "base (the scenario's placement), pp (stages split), dp (whole replicas)"},
    {core::spacekeys::kStageSplit, "Stage split",
     "Stages moved from the proportional split: 0, 1, -1; one per boundary with '/': 1/-1"},
    {core::spacekeys::kRankOrder, "Rank order", "Innermost first, e.g. tp-cp-ep-dp-pp"},
    {core::spacekeys::kDciTransport, "DCI transport", "rdma-otn, lossy-ip, roce-pfc, or base"},
    {core::spacekeys::kWavelengths, "DCI wavelengths", "Per DCI link, or base (each its own)"},
    {core::spacekeys::kFabric, "Fabric",
     "clos, rail-optimized, rail-only, or base; one per datacenter with '/': clos/rail-only"},
}};

QString dimensionLabel(const std::string& key)
{
    for (const DimensionInfo& d : kDimensionInfo)
        if (key == d.key)
            return QString::fromLatin1(d.label);
    if (key == core::spacekeys::kCapexBudget)
        return QObject::tr("Network capex budget");
    if (key == core::spacekeys::kPowerBudget)
        return QObject::tr("Network power budget");
    if (key == core::spacekeys::kDciCapacityMin)
        return QObject::tr("Minimum DCI link capacity");
    if (key == core::spacekeys::kMaxDciUtilisation)
        return QObject::tr("Maximum DCI utilisation");
    if (key == core::spacekeys::kMaxGpusPerDatacenter)
        return QObject::tr("Max GPUs per datacenter");
    if (key == core::spacekeys::kGlobalBatch)
        return QObject::tr("Global batch");
    return QString::fromStdString(key);
}

// One value as the editor writes it: numbers, on/off, names; an array joined by '/'.
QString valueText(const nlohmann::ordered_json& v)
{
    if (v.is_boolean())
        return v.get<bool>() ? QStringLiteral("on") : QStringLiteral("off");
    if (v.is_string())
        return QString::fromStdString(v.get<std::string>());
    if (v.is_array()) {
        QStringList parts;
        for (const auto& e : v)
            parts << valueText(e);
        return parts.join(QLatin1Char('/'));
    }
    return QString::fromStdString(v.dump());
}

QString listText(const nlohmann::ordered_json& array)
{
    QStringList parts;
    for (const auto& v : array)
        parts << valueText(v);
    return parts.join(QStringLiteral(", "));
}

// One token the user typed as JSON: an integer, on/off (true/false, yes/no), else a name.
Json tokenJson(const QString& token)
{
    static const QRegularExpression integer(QStringLiteral("^[+-]?\\d{1,9}$"));
    const QString t = token.trimmed().toLower();
    if (integer.match(t).hasMatch())
        return t.toInt();
    if (t == QLatin1String("on") || t == QLatin1String("true") || t == QLatin1String("yes"))
        return true;
    if (t == QLatin1String("off") || t == QLatin1String("false") || t == QLatin1String("no"))
        return false;
    return t.toStdString();
}

// "1, 2, 4" -> [1, 2, 4]; "clos/rail-only, base" -> [["clos", "rail-only"], "base"]. An empty
// entry is an error (nullopt, the reason in `error`).
std::optional<Json> listJson(const QString& text, QString& error)
{
    Json array = Json::array();
    const QStringList entries = text.split(QLatin1Char(','));
    for (qsizetype i = 0; i < entries.size(); ++i) {
        const QString entry = entries[i].trimmed();
        if (entry.isEmpty()) {
            error = entries.size() == 1 ? QObject::tr("no values (check the box off to keep the "
                                                      "scenario's own)")
                                        : QObject::tr("value %1 is empty").arg(i + 1);
            return std::nullopt;
        }
        if (entry.contains(QLatin1Char('/'))) {
            Json inner = Json::array();
            for (const QString& part : entry.split(QLatin1Char('/')))
                inner.push_back(tokenJson(part));
            array.push_back(std::move(inner));
        } else {
            array.push_back(tokenJson(entry));
        }
    }
    return array;
}

// The scenario's own value of a dimension, as the editor writes it (an unchecked dimension).
QString baseValueText(const std::string& key, const core::Scenario& s)
{
    namespace k = core::spacekeys;
    const core::Parallelism& par = s.parallelism;
    const auto flag = [](bool on) { return on ? QStringLiteral("on") : QStringLiteral("off"); };
    if (key == k::kTp)
        return QString::number(par.tp);
    if (key == k::kCp)
        return QString::number(par.cp);
    if (key == k::kPp)
        return QString::number(par.pp);
    if (key == k::kEp)
        return QString::number(par.ep);
    if (key == k::kDp)
        return QStringLiteral("max");
    if (key == k::kMicroBatch)
        return QString::number(par.microBatch);
    if (key == k::kVirtualStages)
        return QString::number(par.virtualStages);
    if (key == k::kSchedule)
        return QString::fromLatin1(core::toString(s.schedule.kind));
    if (key == k::kExtraInFlight)
        return QString::number(s.schedule.extraInFlightAtDci);
    if (key == k::kRecompute)
        return QString::fromLatin1(core::toString(par.recompute));
    if (key == k::kSequenceParallel)
        return flag(par.sequenceParallel);
    if (key == k::kZeroStage)
        return QString::number(par.zeroStage);
    if (key == k::kDistributedOptimizer)
        return flag(par.distributedOptimizer);
    if (key == k::kStageSplit)
        return QStringLiteral("0");
    if (key == k::kRankOrder) {
        core::RankOrder order = core::kMegatronRankOrder;
        if (s.placement.rankOrder.size() == order.size())
            std::copy(s.placement.rankOrder.begin(), s.placement.rankOrder.end(), order.begin());
        return QString::fromStdString(core::rankOrderToString(order));
    }
    return QStringLiteral("base"); // boundary, DCI transport, wavelengths, fabric
}

// A number the user typed ("12.5", "1e6"), or nullopt.
std::optional<double> parseNumber(const QString& text)
{
    bool ok = false;
    const double v = QLocale::c().toDouble(text.trimmed(), &ok);
    if (!ok)
        return std::nullopt;
    return v;
}

// "/tp/2" -> "TP, value 3: ..."; "/global_batch/max" -> "Global batch, max: ...".
QString diagnosticText(const core::Diagnostic& d)
{
    const QStringList parts =
        QString::fromStdString(d.pointer).split(QLatin1Char('/'), Qt::SkipEmptyParts);
    QString where;
    if (!parts.isEmpty()) {
        where = dimensionLabel(parts.front().toStdString());
        bool isIndex = false;
        if (parts.size() > 1) {
            const int i = parts[1].toInt(&isIndex);
            where +=
                isIndex ? QObject::tr(", value %1").arg(i + 1) : QStringLiteral(", ") + parts[1];
        }
        if (parts.size() > 2) {
            bool inner = false;
            const int j = parts[2].toInt(&inner);
            where += inner ? QObject::tr(", entry %1").arg(j + 1) : QStringLiteral(", ") + parts[2];
        }
    }
    const QString message = QString::fromStdString(d.message);
    return where.isEmpty() ? message : where + QStringLiteral(": ") + message;
}

// The sweep recorded in the document (its "explore" section): one undo step, never a cost
// change, so that the modified mark and Save include it.
class RecordSweep : public ChangeValue<std::string>
{
public:
    RecordSweep(Document* document, std::string text)
        : ChangeValue(
              document, QApplication::translate("Commands", "Record Explore Sweep"),
              {ChangeEvent::Kind::Look}, [](core::Scenario& s) { return &s.explore; },
              std::move(text))
    {}
};

core::SweepResult resultOf(const core::SavedSweep& saved)
{
    core::SweepResult r;
    r.ok = true;
    r.cancelled = saved.cancelled;
    r.counts = saved.counts;
    r.baseRank = saved.baseRank;
    r.timeVsCapex = saved.timeVsCapex;
    r.timeVsMemory = saved.timeVsMemory;
    r.trainTimeVsCost = saved.trainTimeVsCost;
    r.topBy = saved.topBy;
    r.top = saved.topBy[static_cast<std::size_t>(core::SweepObjective::IterationTime)];
    return r;
}

} // namespace

struct ExplorePanel::Dimension
{
    std::string key;
    QCheckBox* check = nullptr;
    QLineEdit* values = nullptr;
};

struct ExplorePanel::Outcome
{
    core::SweepResult result;
    std::vector<core::SweepSample> samples;
};

ExplorePanel::ExplorePanel(Document* document, EditController* edits, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_edits(edits)
{
    m_watcher = new QFutureWatcher<std::shared_ptr<Outcome>>(this);
    connect(m_watcher, &QFutureWatcherBase::finished, this, &ExplorePanel::onFinished);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("ExploreSplitter"));
    splitter->setChildrenCollapsible(false);
    auto* scroll = new QScrollArea(splitter);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(makeEditor());
    scroll->setMinimumWidth(300);
    splitter->addWidget(scroll);
    m_scatter = new views::ParetoScatter(splitter);
    m_scatter->setObjectName(QStringLiteral("ExploreScatter"));
    m_scatter->setDescriber([this](std::uint64_t index) { return describe(index); });
    splitter->addWidget(m_scatter);
    splitter->addWidget(makeResults());
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 3);
    splitter->setStretchFactor(2, 3);
    splitter->setSizes({300, 420, 460});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(splitter);

    connect(m_scatter, &views::ParetoScatter::pointClicked, this,
            [this](quint64 index) { previewPoint(index); });
    connect(m_table, &views::SweepTopTable::pointSelected, this, [this](int row) {
        const auto& list = topBy(static_cast<core::SweepObjective>(m_objective->currentIndex()));
        if (row >= 0 && static_cast<std::size_t>(row) < list.size())
            previewPoint(list[static_cast<std::size_t>(row)].point.index);
    });
    connect(m_document, &Document::changed, this, &ExplorePanel::onDocumentChanged);
    setRunning(false);
    onDocumentChanged();
}

ExplorePanel::~ExplorePanel()
{
    // The worker posts progress to this panel: stop it before the panel goes.
    if (m_cancel)
        m_cancel->store(true);
    m_watcher->waitForFinished();
}

QWidget* ExplorePanel::makeEditor()
{
    m_editor = new QWidget;
    auto* layout = new QVBoxLayout(m_editor);
    layout->setContentsMargins(0, 0, 6, 0);

    auto* top = new QHBoxLayout;
    m_runButton = new QPushButton(tr("Run"), m_editor);
    m_runButton->setObjectName(QStringLiteral("ExploreRun"));
    m_runButton->setToolTip(tr("Search the space around the current scenario"));
    m_resetButton = new QPushButton(tr("Reset"), m_editor);
    m_resetButton->setToolTip(tr("The default space for the current scenario"));
    m_spaceSize = new QLabel(m_editor);
    top->addWidget(m_runButton);
    top->addWidget(m_resetButton);
    top->addWidget(m_spaceSize, 1);
    layout->addLayout(top);
    m_progress = new QProgressBar(m_editor);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(true);
    m_progress->setFormat(QString());
    layout->addWidget(m_progress);
    m_rate = new QLabel(m_editor);
    m_rate->setObjectName(QStringLiteral("ExploreRate"));
    layout->addWidget(m_rate);
    m_message = new QLabel(m_editor);
    m_message->setObjectName(QStringLiteral("ExploreMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->hide();
    layout->addWidget(m_message);

    auto* dims = new QGroupBox(tr("Dimensions (checked: searched)"), m_editor);
    auto* grid = new QGridLayout(dims);
    grid->setVerticalSpacing(2);
    grid->setColumnStretch(1, 1);
    for (const DimensionInfo& info : kDimensionInfo) {
        Dimension d;
        d.key = info.key;
        d.check = new QCheckBox(tr(info.label), dims);
        d.values = new QLineEdit(dims);
        d.values->setObjectName(QStringLiteral("ExploreValues_") + QLatin1String(info.key));
        d.check->setToolTip(tr("Checked: the search tries each value; unchecked: the "
                               "scenario's own"));
        d.values->setToolTip(tr(info.hint) + tr("; values separated by commas"));
        d.values->setPlaceholderText(tr(info.hint));
        const int row = grid->rowCount();
        grid->addWidget(d.check, row, 0);
        grid->addWidget(d.values, row, 1);
        connect(d.check, &QCheckBox::toggled, this, [this, edit = d.values](bool on) {
            edit->setEnabled(on);
            updateSpaceSize();
        });
        connect(d.values, &QLineEdit::textEdited, this, &ExplorePanel::updateSpaceSize);
        m_dimensions.push_back(d);
    }
    layout->addWidget(dims);

    auto* constraints = new QGroupBox(tr("Constraints (empty: none)"), m_editor);
    auto* form = new QFormLayout(constraints);
    form->setVerticalSpacing(2);
    const auto numberEdit = [&](const QString& label, const QString& tip) {
        auto* edit = new QLineEdit(constraints);
        edit->setPlaceholderText(tr("none"));
        edit->setToolTip(tip);
        form->addRow(label, edit);
        connect(edit, &QLineEdit::textEdited, this, &ExplorePanel::updateSpaceSize);
        return edit;
    };
    m_capexBudget = numberEdit(tr("Network capex ≤ (M USD)"),
                               tr("Points whose network capex exceeds this are over budget"));
    m_powerBudget = numberEdit(tr("Network power ≤ (MW)"),
                               tr("Points whose network power exceeds this are over budget"));
    m_dciCapacity = numberEdit(tr("DCI link ≥ (Gb/s)"),
                               tr("Topology variants with a thinner DCI link are pruned"));
    m_dciUtilisation = numberEdit(tr("DCI utilisation ≤ (%)"),
                                  tr("Busy time over iteration time of the busiest DCI link"));
    m_gpuCaps = numberEdit(tr("GPUs per datacenter ≤"),
                           tr("One number for every datacenter, or one per datacenter "
                              "separated by commas"));
    m_batchFixed = new QCheckBox(tr("fixed at the scenario's"), constraints);
    form->addRow(tr("Global batch"), m_batchFixed);
    auto* range = new QHBoxLayout;
    m_batchMin = new QLineEdit(constraints);
    m_batchMax = new QLineEdit(constraints);
    m_batchMin->setToolTip(tr("Smallest global batch (sequences) a point may use"));
    m_batchMax->setToolTip(tr("Largest global batch (sequences) a point may use"));
    range->addWidget(m_batchMin);
    range->addWidget(new QLabel(tr("to"), constraints));
    range->addWidget(m_batchMax);
    form->addRow(tr("   min / max"), range);
    connect(m_batchFixed, &QCheckBox::toggled, this, [this](bool fixed) {
        m_batchMin->setEnabled(!fixed);
        m_batchMax->setEnabled(!fixed);
        updateSpaceSize();
    });
    connect(m_batchMin, &QLineEdit::textEdited, this, &ExplorePanel::updateSpaceSize);
    connect(m_batchMax, &QLineEdit::textEdited, this, &ExplorePanel::updateSpaceSize);
    layout->addWidget(constraints);
    layout->addStretch(1);

    connect(m_runButton, &QPushButton::clicked, this, [this] {
        if (isRunning())
            cancel();
        else
            run();
    });
    connect(m_resetButton, &QPushButton::clicked, this, &ExplorePanel::resetSpace);
    return m_editor;
}

QWidget* ExplorePanel::makeResults()
{
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* row = new QHBoxLayout;
    m_axes = new QComboBox(box);
    m_axes->addItems({tr("Iteration time vs network capex"), tr("Time to train vs total cost"),
                      tr("Iteration time vs memory peak")});
    m_axes->setToolTip(tr("The pair of objectives the scatter and its front show"));
    connect(m_axes, &QComboBox::currentIndexChanged, this,
            [this](int i) { m_scatter->setAxes(static_cast<views::ScatterAxes>(i)); });
    row->addWidget(new QLabel(tr("Scatter:"), box));
    row->addWidget(m_axes);
    row->addSpacing(12);
    row->addWidget(new QLabel(tr("Top %1 by").arg(kTop), box));
    m_objective = new QComboBox(box);
    m_objective->addItems({tr("Iteration time"), tr("Time to train"), tr("Total cost"),
                           tr("Network capex"), tr("Memory peak")});
    connect(m_objective, &QComboBox::currentIndexChanged, this, &ExplorePanel::refreshTable);
    row->addWidget(m_objective);
    row->addStretch(1);
    layout->addLayout(row);

    m_table = new views::SweepTopTable(box);
    m_table->setObjectName(QStringLiteral("ExploreTopTable"));
    layout->addWidget(m_table, 1);

    auto* preview = new QHBoxLayout;
    m_previewLabel = new QLabel(tr("Click a point or a row to preview it."), box);
    m_previewLabel->setWordWrap(true);
    m_previewLabel->setObjectName(QStringLiteral("ExplorePreview"));
    m_pinButton = new QPushButton(tr("Pin"), box);
    m_pinButton->setToolTip(tr("Pin the previewed point for comparison (undoable)"));
    m_applyButton = new QPushButton(tr("Apply"), box);
    m_applyButton->setToolTip(tr("Make the previewed point the current design (one undo step)"));
    m_clearButton = new QPushButton(tr("Clear"), box);
    m_clearButton->setToolTip(tr("Stop previewing"));
    preview->addWidget(m_previewLabel, 1);
    preview->addWidget(m_pinButton);
    preview->addWidget(m_applyButton);
    preview->addWidget(m_clearButton);
    layout->addLayout(preview);
    connect(m_pinButton, &QPushButton::clicked, this, &ExplorePanel::pinPreview);
    connect(m_applyButton, &QPushButton::clicked, this, &ExplorePanel::applyPreview);
    connect(m_clearButton, &QPushButton::clicked, this, &ExplorePanel::clearPreview);

    m_counts = new QLabel(tr("No sweep yet: set the space on the left and press Run."), box);
    m_counts->setObjectName(QStringLiteral("ExploreCounts"));
    m_counts->setWordWrap(true);
    m_counts->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_counts);
    return box;
}

QLineEdit* ExplorePanel::valuesEdit(const QString& key) const
{
    for (const Dimension& d : m_dimensions)
        if (QString::fromStdString(d.key) == key)
            return d.values;
    return nullptr;
}

QCheckBox* ExplorePanel::dimensionCheck(const QString& key) const
{
    for (const Dimension& d : m_dimensions)
        if (QString::fromStdString(d.key) == key)
            return d.check;
    return nullptr;
}

void ExplorePanel::resetSpace()
{
    setSpace(core::defaultSearchSpace(m_document->scenario()));
}

void ExplorePanel::setSpace(const core::SearchSpace& space)
{
    namespace k = core::spacekeys;
    const nlohmann::ordered_json j = core::searchSpaceToJson(space);
    const core::Scenario& s = m_document->scenario();
    for (Dimension& d : m_dimensions) {
        const auto it = j.find(d.key);
        const bool varied = it != j.end() && it->size() > 1;
        d.values->setText(it != j.end() ? listText(*it) : baseValueText(d.key, s));
        d.values->setCursorPosition(0); // the first values in view, not the last
        d.check->setChecked(varied);
        d.values->setEnabled(varied);
    }
    const auto number = [&j](const char* key, double scale) {
        const auto it = j.find(key);
        return it != j.end() && it->is_number()
                   ? QLocale::c().toString(it->get<double>() / scale, 'g', 12)
                   : QString();
    };
    m_capexBudget->setText(number(k::kCapexBudget, kMillion));
    m_powerBudget->setText(number(k::kPowerBudget, kMillion));
    m_dciCapacity->setText(number(k::kDciCapacityMin, 1.0));
    m_dciUtilisation->setText(number(k::kMaxDciUtilisation, 0.01));
    QStringList caps;
    for (std::int64_t c : space.maxGpusPerDatacenter)
        caps << QString::number(c);
    m_gpuCaps->setText(caps.join(QStringLiteral(", ")));
    const int batch = s.workload.globalBatch;
    const bool fixed =
        space.globalBatch.minSequences == batch && space.globalBatch.maxSequences == batch;
    m_batchFixed->setText(tr("fixed at the scenario's %1").arg(batch));
    m_batchFixed->setChecked(fixed);
    m_batchMin->setText(QString::number(space.globalBatch.minSequences));
    m_batchMax->setText(QString::number(space.globalBatch.maxSequences));
    m_batchMin->setEnabled(!fixed);
    m_batchMax->setEnabled(!fixed);
    updateSpaceSize();
}

std::optional<core::SearchSpace> ExplorePanel::space(QString* error) const
{
    namespace k = core::spacekeys;
    const core::Scenario& s = m_document->scenario();
    Json doc = Json::object();
    const auto fail = [error](const QString& text) {
        if (error)
            *error = text;
        return std::nullopt;
    };
    for (const Dimension& d : m_dimensions) {
        QString why;
        const QString text = d.check->isChecked() ? d.values->text() : baseValueText(d.key, s);
        const std::optional<Json> list = listJson(text, why);
        if (!list)
            return fail(dimensionLabel(d.key) + QStringLiteral(": ") + why);
        doc[d.key] = *list;
    }
    const auto number = [&](QLineEdit* edit, const char* key, double scale,
                            const QString& unit) -> bool {
        const QString text = edit->text().trimmed();
        if (text.isEmpty())
            return true;
        const std::optional<double> v = parseNumber(text);
        if (!v || !std::isfinite(*v) || *v <= 0.0) {
            if (error)
                *error = tr("%1: expected a positive number of %2, got “%3”")
                             .arg(dimensionLabel(key), unit, text);
            return false;
        }
        doc[key] = *v * scale;
        return true;
    };
    if (!number(m_capexBudget, k::kCapexBudget, kMillion, tr("M USD")) ||
        !number(m_powerBudget, k::kPowerBudget, kMillion, tr("MW")) ||
        !number(m_dciCapacity, k::kDciCapacityMin, 1.0, tr("Gb/s")) ||
        !number(m_dciUtilisation, k::kMaxDciUtilisation, 0.01, tr("percent")))
        return std::nullopt;
    if (const QString caps = m_gpuCaps->text().trimmed(); !caps.isEmpty()) {
        QString why;
        const std::optional<Json> list = listJson(caps, why);
        if (!list)
            return fail(dimensionLabel(k::kMaxGpusPerDatacenter) + QStringLiteral(": ") + why);
        doc[k::kMaxGpusPerDatacenter] = list->size() == 1 ? list->front() : *list;
    }
    if (m_batchFixed->isChecked()) {
        doc[k::kGlobalBatch] = {{k::kMin, s.workload.globalBatch},
                                {k::kMax, s.workload.globalBatch}};
    } else {
        doc[k::kGlobalBatch] = {{k::kMin, tokenJson(m_batchMin->text())},
                                {k::kMax, tokenJson(m_batchMax->text())}};
    }
    core::DiagnosticSink sink("");
    std::optional<core::SearchSpace> read = core::parseSearchSpace(doc.dump(), s, sink);
    if (!read) {
        const std::vector<core::Diagnostic> errors = sink.takeErrors();
        return fail(errors.empty() ? tr("the space cannot be read")
                                   : diagnosticText(errors.front()));
    }
    return read;
}

void ExplorePanel::updateSpaceSize()
{
    QString error;
    const std::optional<core::SearchSpace> s = space(&error);
    if (!s) {
        m_spaceSize->setText(tr("invalid space"));
        showMessage(error, true);
        m_message->setProperty("spaceError", true);
        m_runButton->setEnabled(isRunning());
        return;
    }
    m_spaceSize->setText(tr("%1 points")
                             .arg(views::formatCount(static_cast<std::int64_t>(
                                 std::min<std::uint64_t>(core::spacePoints(*s), INT64_MAX)))));
    if (m_message->property("spaceError").toBool())
        showMessage({}, false);
    m_runButton->setEnabled(true);
}

void ExplorePanel::showMessage(const QString& text, bool error)
{
    m_message->setProperty("error", error);
    m_message->setProperty("spaceError", false);
    m_message->setText(text);
    m_message->setStyleSheet(error ? QStringLiteral("color: #c0392b;") : QString());
    m_message->setVisible(!text.isEmpty());
}

QString ExplorePanel::message() const
{
    return m_message->text();
}

bool ExplorePanel::isRunning() const
{
    // Until onFinished has taken the result (the watcher's finished signal is queued).
    return m_running;
}

void ExplorePanel::setRunning(bool running)
{
    m_runButton->setText(running ? tr("Cancel") : tr("Run"));
    m_runButton->setEnabled(true);
    m_resetButton->setEnabled(!running);
    for (Dimension& d : m_dimensions)
        d.check->setEnabled(!running);
    for (Dimension& d : m_dimensions)
        d.values->setEnabled(!running && d.check->isChecked());
    for (QLineEdit* e : {m_capexBudget, m_powerBudget, m_dciCapacity, m_dciUtilisation, m_gpuCaps})
        e->setEnabled(!running);
    m_batchFixed->setEnabled(!running);
    m_batchMin->setEnabled(!running && !m_batchFixed->isChecked());
    m_batchMax->setEnabled(!running && !m_batchFixed->isChecked());
    if (!running)
        updateSpaceSize();
}

bool ExplorePanel::run()
{
    if (isRunning())
        return false;
    QString error;
    const std::optional<core::SearchSpace> s = space(&error);
    if (!s) {
        showMessage(error, true);
        m_message->setProperty("spaceError", true);
        return false;
    }
    showMessage({}, false);
    m_sweptSpace = *s;
    m_sweptBase = m_document->scenario();
    m_sweptBase.explore.clear();
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    const core::Scenario base = m_sweptBase;
    const core::SearchSpace searched = *s;
    const std::shared_ptr<std::atomic<bool>> cancelFlag = m_cancel;
    m_clock.start();
    m_progress->setRange(0, 0); // placements and topology variants first: no count yet
    m_progress->setFormat(tr("preparing…"));
    m_rate->setText(tr("Making the placements and topology variants…"));
    m_running = true;
    m_discardRun = false;
    setRunning(true);
    m_watcher->setFuture(QtConcurrent::run([this, base, searched, cancelFlag] {
        auto outcome = std::make_shared<Outcome>();
        core::SweepOptions options;
        options.top = kTop;
        options.cancel = cancelFlag.get();
        options.samples = &outcome->samples;
        // Between batches, on this worker thread: hand the figures to the panel's thread (the
        // panel waits for this worker before it goes, see the destructor).
        options.progress = [this](const core::SweepProgress& p) {
            QMetaObject::invokeMethod(
                this, [this, p] { onProgress(p); }, Qt::QueuedConnection);
        };
        outcome->result = core::runSweep(base, core::effectiveCatalog(base), searched, options);
        return outcome;
    }));
    return true;
}

void ExplorePanel::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
    m_rate->setText(tr("Cancelling…"));
}

bool ExplorePanel::runAndWait(int timeoutMs)
{
    if (!run())
        return false;
    QElapsedTimer clock;
    clock.start();
    while (isRunning()) {
        if (clock.elapsed() > timeoutMs)
            cancel();
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    }
    QApplication::processEvents();
    return true;
}

void ExplorePanel::onProgress(const core::SweepProgress& p)
{
    if (!isRunning() || p.total == 0)
        return;
    m_progress->setRange(0, 1000);
    m_progress->setValue(static_cast<int>(1000.0 * static_cast<double>(p.considered) /
                                          static_cast<double>(p.total)));
    m_progress->setFormat(tr("%1 of %2")
                              .arg(views::formatCount(static_cast<std::int64_t>(p.considered)),
                                   views::formatCount(static_cast<std::int64_t>(p.total))));
    const double seconds = std::max(1e-3, static_cast<double>(m_clock.elapsed()) / 1000.0);
    m_rate->setText(tr("%1 evaluated · %2 points/s")
                        .arg(views::formatCount(static_cast<std::int64_t>(p.evaluated)),
                             views::formatCount(static_cast<std::int64_t>(
                                 std::llround(static_cast<double>(p.considered) / seconds)))));
}

void ExplorePanel::onFinished()
{
    const std::shared_ptr<Outcome> outcome = m_watcher->result();
    m_running = false;
    setRunning(false);
    if (m_discardRun) {
        m_discardRun = false;
        m_progress->setValue(0);
        m_progress->setFormat(QString());
        m_rate->clear();
        m_shownExplore = "\x01"; // show what the new document holds
        onDocumentChanged();
        return;
    }
    m_progress->setRange(0, 1000);
    if (!outcome || !outcome->result.ok) {
        m_progress->setValue(0);
        m_progress->setFormat(QString());
        m_rate->clear();
        showMessage(tr("The sweep could not run: %1")
                        .arg(outcome ? QString::fromStdString(outcome->result.error)
                                     : tr("it stopped unexpectedly")),
                    true);
        return;
    }
    const core::SweepResult& r = outcome->result;
    m_progress->setValue(r.cancelled ? m_progress->value() : 1000);
    m_progress->setFormat(r.cancelled ? tr("cancelled") : tr("done"));
    const double rate = r.wallS > 0.0 ? static_cast<double>(r.counts.considered) / r.wallS : 0.0;
    m_rate->setText(tr("%1 s · %2 points/s")
                        .arg(QString::number(r.wallS, 'f', 1),
                             views::formatCount(static_cast<std::int64_t>(std::llround(rate)))));
    showResult(r, std::move(outcome->samples));
    emit statusMessage(
        r.cancelled ? tr("Explore: cancelled; partial results shown")
                    : tr("Explore: %1 points evaluated")
                          .arg(views::formatCount(static_cast<std::int64_t>(r.counts.evaluated))));
    // Saved with the document: the space, the counts, the fronts and the top lists (not a
    // sweep cancelled before its first point: the saved one, if any, stays).
    if (r.counts.considered == 0)
        return;
    std::string text = core::savedSweepText(m_sweptSpace, r);
    m_shownExplore = text;
    m_recorded = text;
    // The stack runs the command before it counts it: the change is ours, not a new document.
    m_recording = true;
    m_document->undoStack()->push(new RecordSweep(m_document, std::move(text)));
    m_recording = false;
}

void ExplorePanel::showResult(const core::SweepResult& result,
                              std::vector<core::SweepSample> samples)
{
    clearPreview();
    m_result = result;
    m_samples = std::move(samples);
    m_scatter->setSweep(m_samples, result.timeVsCapex, result.trainTimeVsCost, result.timeVsMemory);
    m_counts->setText(countsText());
    refreshTable();
    refreshMarkers();
}

const std::vector<core::SweepPoint>& ExplorePanel::topBy(core::SweepObjective objective) const
{
    static const std::vector<core::SweepPoint> none;
    return m_result ? m_result->topBy[static_cast<std::size_t>(objective)] : none;
}

QString ExplorePanel::countsText() const
{
    if (!m_result)
        return {};
    const core::SweepCounts& c = m_result->counts;
    const auto n = [](std::uint64_t v) { return views::formatCount(static_cast<std::int64_t>(v)); };
    QStringList reasons;
    for (std::size_t i = 0; i < c.pruned.size(); ++i)
        if (c.pruned[i] > 0)
            reasons << QStringLiteral("%1 %2").arg(
                QString::fromLatin1(core::toString(static_cast<core::PruneReason>(i))),
                n(c.pruned[i]));
    QString text;
    if (m_result->cancelled)
        text = tr("Cancelled after %1 of %2 points: the results cover those only. ")
                   .arg(n(c.considered), n(c.spacePoints));
    text += tr("Space %1 points; pruned %2%3; evaluated %4 (out of memory %5, over budget %6, "
               "failed %7); feasible %8.")
                .arg(n(c.spacePoints), n(c.prunedTotal()),
                     reasons.isEmpty() ? QString()
                                       : QStringLiteral(" (") + reasons.join(QStringLiteral(", ")) +
                                             QStringLiteral(")"),
                     n(c.evaluated), n(c.outOfMemory), n(c.overBudget), n(c.failed), n(c.feasible));
    if (m_samples.empty() && c.evaluated > 0)
        text += tr(" Saved sweep: the fronts and top lists only; run again to see every point.");
    if (m_result->baseRank > 0)
        text +=
            tr(" The searched scenario ranks #%1 by iteration time.").arg(n(m_result->baseRank));
    return text;
}

void ExplorePanel::refreshTable()
{
    std::optional<core::Evaluation> current;
    if (m_current)
        current = m_current->evaluation;
    m_table->setPoints(topBy(static_cast<core::SweepObjective>(m_objective->currentIndex())),
                       current);
}

void ExplorePanel::setDesignPoints(const QList<views::DesignPoint>& pinned,
                                   const views::DesignPoint& current)
{
    m_pinned = pinned;
    m_current = current;
    refreshTable();
    refreshMarkers();
}

void ExplorePanel::refreshMarkers()
{
    QList<views::ScatterMarker> markers;
    const auto add = [&markers](const views::DesignPoint& p, bool preview) {
        const core::Evaluation& e = p.evaluation;
        if (!e.ok)
            return;
        views::ScatterMarker m{
            p.name,
            p.color,
            e.iterationTimeS,
            e.timeToTrainS,
            e.memoryPeakGib,
            e.networkCapexUsd,
            core::totalCostUsd(p.scenario, core::effectiveCatalog(p.scenario), e.networkCapexUsd),
            preview};
        markers.append(m);
    };
    for (const views::DesignPoint& p : m_pinned)
        add(p, false);
    if (m_current)
        add(*m_current, false);
    if (m_preview)
        add(*m_preview, true);
    m_scatter->setMarkers(markers);
}

QString ExplorePanel::describe(std::uint64_t index) const
{
    if (!m_result)
        return {};
    for (const std::vector<core::SweepPoint>* list :
         {&m_result->timeVsCapex, &m_result->trainTimeVsCost, &m_result->timeVsMemory})
        for (const core::SweepPoint& p : *list)
            if (p.point.index == index)
                return QString::fromStdString(core::describeSweepPoint(p));
    for (const auto& list : m_result->topBy)
        for (const core::SweepPoint& p : list)
            if (p.point.index == index)
                return QString::fromStdString(core::describeSweepPoint(p));
    // Another evaluated point: its knobs from the index (DP as the point asks for it).
    const core::SpaceOdometer odometer(m_sweptSpace);
    if (index >= odometer.size())
        return {};
    core::SweepPoint p;
    p.point = odometer.at(index);
    p.dataParallel = p.point.dataParallel;
    QString text = QString::fromStdString(core::describeSweepPoint(p));
    if (p.point.dataParallel == 0)
        text.replace(QStringLiteral(" dp 0 "), QStringLiteral(" dp max "));
    return text;
}

bool ExplorePanel::previewPoint(std::uint64_t index)
{
    if (!m_result)
        return false;
    const core::Catalog catalog = core::effectiveCatalog(m_sweptBase);
    const std::optional<core::SweepPointScenario> made =
        core::sweepPointScenario(m_sweptBase, catalog, m_sweptSpace, index);
    if (!made) {
        emit statusMessage(tr("Point #%1 cannot be made for this scenario").arg(index));
        return false;
    }
    QApplication::setOverrideCursor(Qt::WaitCursor);
    core::EvaluateOptions options;
    options.attribution = false;
    const core::Evaluation evaluation = core::evaluate(made->scenario, catalog, options);
    QApplication::restoreOverrideCursor();
    m_previewIndex = index;
    m_preview =
        views::DesignPoint{tr("Preview #%1").arg(index), kPreviewColor, made->scenario, evaluation};
    core::SweepPoint described;
    described.point = made->point;
    described.dataParallel = core::dataParallel(made->scenario);
    m_previewLabel->setText(tr("Previewing #%1: %2 — %3 per iteration")
                                .arg(index)
                                .arg(QString::fromStdString(core::describeSweepPoint(described)),
                                     evaluation.ok ? views::formatSeconds(evaluation.iterationTimeS)
                                                   : tr("not evaluated")));
    m_pinButton->setEnabled(true);
    m_applyButton->setEnabled(true);
    m_clearButton->setEnabled(true);
    refreshMarkers();
    emit previewChanged(m_preview);
    return true;
}

void ExplorePanel::clearPreview()
{
    m_pinButton->setEnabled(false);
    m_applyButton->setEnabled(false);
    m_clearButton->setEnabled(false);
    m_previewLabel->setText(tr("Click a point or a row to preview it."));
    if (!m_preview)
        return;
    m_preview.reset();
    m_table->selectPoint(-1);
    refreshMarkers();
    emit previewChanged(m_preview);
}

bool ExplorePanel::pinPreview()
{
    if (!m_preview)
        return false;
    core::Scenario pinned = m_preview->scenario;
    pinned.explore.clear();
    m_edits->pin(pinned, tr("Explore #%1").arg(m_previewIndex));
    return true;
}

bool ExplorePanel::applyPreview()
{
    if (!m_preview)
        return false;
    // The point's knobs on the document as it is now: its parallelism, placement, schedule,
    // global batch and topology variant (applied to the current topology).
    const core::Scenario& now = m_document->scenario();
    const core::Scenario& point = m_preview->scenario;
    core::Scenario target = now;
    target.parallelism = point.parallelism;
    target.placement = point.placement;
    target.schedule = point.schedule;
    target.workload.globalBatch = point.workload.globalBatch;
    const core::SpaceOdometer odometer(m_sweptSpace);
    if (m_previewIndex < odometer.size()) {
        const core::DesignPoint p = odometer.at(m_previewIndex);
        core::applyTopologyVariant(target.topology, now.topology, p.dciTransport, p.wavelengths,
                                   p.fabric);
    }
    const QString text = tr("Apply Explore Point #%1").arg(m_previewIndex);
    if (!m_edits->apply(target, text, false))
        return false;
    clearPreview();
    return true;
}

void ExplorePanel::onDocumentChanged()
{
    if (m_recording)
        return;
    const core::Scenario& s = m_document->scenario();
    // A document just opened or made (its history empty): its own sweep or none, and the
    // space for it. Later, a recording undone or redone to another saved sweep shows that
    // one; undone to none, the results stay on screen (they are no longer saved).
    const bool fresh = m_document->undoStack()->count() == 0;
    // (A redone recording of the results on screen keeps them, every point included.)
    if (!fresh && (s.explore == m_shownExplore || s.explore.empty() ||
                   (s.explore == m_recorded && m_result))) {
        m_shownExplore = s.explore;
        return;
    }
    if (isRunning()) {
        // Another document opened while sweeping: that sweep is not its own.
        if (fresh) {
            m_discardRun = true;
            cancel();
        }
        return;
    }
    if (fresh && s.explore == m_shownExplore && m_freshScenario == s)
        return; // the same fresh document again (a look change)
    m_freshScenario = fresh ? s : core::Scenario{};
    m_shownExplore = s.explore;
    clearPreview();
    m_result.reset();
    m_samples.clear();
    m_scatter->clearSweep();
    m_table->setPoints({}, std::nullopt);
    m_counts->setText(tr("No sweep yet: set the space on the left and press Run."));
    m_progress->setValue(0);
    m_progress->setFormat(QString());
    m_rate->clear();
    if (s.explore.empty()) {
        resetSpace();
        showMessage({}, false);
        return;
    }
    core::DiagnosticSink sink(m_document->fileName().toStdString());
    const std::optional<core::SavedSweep> saved = core::readSavedSweep(s.explore, s, sink);
    if (!saved) {
        resetSpace();
        QStringList lines;
        for (const core::Diagnostic& d : sink.takeErrors())
            lines << QString::fromStdString(d.pointer + ": " + d.message);
        showMessage(tr("The saved sweep could not be read (the default space is shown):\n%1")
                        .arg(lines.join(QLatin1Char('\n'))),
                    true);
        return;
    }
    m_sweptBase = s;
    m_sweptBase.explore.clear();
    m_sweptSpace = saved->space;
    setSpace(saved->space);
    showMessage({}, false);
    showResult(resultOf(*saved), {});
}

} // namespace archipelago::app
