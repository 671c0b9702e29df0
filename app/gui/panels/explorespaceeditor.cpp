// ExploreSpaceEditor: the Explore panel's space and constraints as fields, read back through
// explore/spacejson (the same reader as `sweep --space`), so the window and the CLI accept the
// same spaces and refuse them with the same rules.
#include "panels/explorespaceeditor.h"

#include "document/document.h"
#include "explore/spacejson.h"
#include "explore/sweepsave.h"
#include "io/jsondocument.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QRegularExpression>
#include <QVBoxLayout>

#include <array>
#include <cmath>

namespace archipelago::app {

namespace {

using Json = core::Json;

constexpr double kMillion = 1e6;

// A dimension of the space as the editor shows it.
struct DimensionInfo
{
    const char* key; // the --space key (explore/spacejson.h)
    const char* label;
    const char* hint;
};

const std::array<DimensionInfo, 24> kDimensionInfo{{
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
    {core::spacekeys::kGradReduceDtype, "Gradient reduction",
     "fp32, bf16 (bf16 halves the DP bytes; its effect on convergence is yours to judge)"},
    {core::spacekeys::kBoundary, "Across datacenters",
     "base (the scenario's placement), pp (stages split), dp (whole replicas)"},
    {core::spacekeys::kStageSplit, "Stage split",
     "Stages moved from the proportional split: 0, 1, -1; one per boundary with '/': 1/-1"},
    {core::spacekeys::kRankOrder, "Rank order", "Innermost first, e.g. tp-cp-ep-dp-pp"},
    {core::spacekeys::kDciTransport, "DCI transport",
     "rdma-otn, lossy-ip, roce-pfc, or base; one per DCI link with '/': base/lossy-ip"},
    {core::spacekeys::kWavelengths, "DCI wavelengths",
     "A count for every DCI link, or base (each its own); one per link with '/': 32/base"},
    {core::spacekeys::kNcclChannels, "NCCL channels",
     "Per GPU flow on every DCI link, 1-64, or base (each its own)"},
    {core::spacekeys::kFabric, "Fabric",
     "clos, rail-optimized, rail-only, or base; one per datacenter with '/': clos/rail-only"},
    {core::spacekeys::kDatacenterSync, "Datacenter sync",
     "synchronous, diloco, streaming-diloco (where DP crosses a datacenter; rank by effective "
     "time to train, which counts the extra steps)"},
    {core::spacekeys::kInnerSteps, "Inner steps (H)",
     "Steps between two outer synchronisations of DiLoCo, e.g. 30, 100, 300"},
    {core::spacekeys::kCheckpointIntervalS, "Checkpoint interval",
     "Seconds of training between checkpoints, or daly (Daly's optimum)"},
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

// A number the user typed ("12.5", "1e6"), or nullopt.
std::optional<double> parseNumber(const QString& text)
{
    bool ok = false;
    const double v = QLocale::c().toDouble(text.trimmed(), &ok);
    if (!ok)
        return std::nullopt;
    return v;
}

// One token the user typed as JSON: an integer, a decimal number ("1800.5", "3.6e3"), on/off
// (true/false, yes/no), else a name.
Json tokenJson(const QString& token)
{
    static const QRegularExpression integer(QStringLiteral("^[+-]?\\d{1,9}$"));
    static const QRegularExpression decimal(
        QStringLiteral("^[+-]?(\\d+\\.?\\d*|\\.\\d+)(e[+-]?\\d+)?$"));
    const QString t = token.trimmed().toLower();
    if (integer.match(t).hasMatch())
        return t.toInt();
    if (decimal.match(t).hasMatch())
        if (const std::optional<double> v = parseNumber(t); v && std::isfinite(*v))
            return *v;
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
    if (key == k::kGradReduceDtype)
        return QString::fromLatin1(core::toString(par.gradReduceDtype));
    if (key == k::kStageSplit)
        return QStringLiteral("0");
    if (key == k::kRankOrder) {
        core::RankOrder order = core::kMegatronRankOrder;
        if (s.placement.rankOrder.size() == order.size())
            std::copy(s.placement.rankOrder.begin(), s.placement.rankOrder.end(), order.begin());
        return QString::fromStdString(core::rankOrderToString(order));
    }
    // Boundary, DCI transport, wavelengths, fabric, datacenter sync, inner steps, checkpoint
    // interval.
    return QStringLiteral("base");
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

} // namespace

struct ExploreSpaceEditor::Dimension
{
    std::string key;
    QCheckBox* check = nullptr;
    QLineEdit* values = nullptr;
};

ExploreSpaceEditor::ExploreSpaceEditor(const Document* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* dims = new QGroupBox(tr("Dimensions (checked: searched)"), this);
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
            emit edited();
        });
        connect(d.values, &QLineEdit::textEdited, this, &ExploreSpaceEditor::edited);
        m_dimensions.push_back(d);
    }
    layout->addWidget(dims);

    auto* constraints = new QGroupBox(tr("Constraints (empty: none)"), this);
    auto* form = new QFormLayout(constraints);
    form->setVerticalSpacing(2);
    const auto numberEdit = [&](const QString& label, const QString& tip) {
        auto* edit = new QLineEdit(constraints);
        edit->setPlaceholderText(tr("none"));
        edit->setToolTip(tip);
        form->addRow(label, edit);
        connect(edit, &QLineEdit::textEdited, this, &ExploreSpaceEditor::edited);
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
        emit edited();
    });
    connect(m_batchMin, &QLineEdit::textEdited, this, &ExploreSpaceEditor::edited);
    connect(m_batchMax, &QLineEdit::textEdited, this, &ExploreSpaceEditor::edited);
    layout->addWidget(constraints);
}

ExploreSpaceEditor::~ExploreSpaceEditor() = default;

QLineEdit* ExploreSpaceEditor::valuesEdit(const QString& key) const
{
    for (const Dimension& d : m_dimensions)
        if (QString::fromStdString(d.key) == key)
            return d.values;
    return nullptr;
}

QCheckBox* ExploreSpaceEditor::dimensionCheck(const QString& key) const
{
    for (const Dimension& d : m_dimensions)
        if (QString::fromStdString(d.key) == key)
            return d.check;
    return nullptr;
}

void ExploreSpaceEditor::setLocked(bool locked)
{
    for (Dimension& d : m_dimensions) {
        d.check->setEnabled(!locked);
        d.values->setEnabled(!locked && d.check->isChecked());
    }
    for (QLineEdit* e : {m_capexBudget, m_powerBudget, m_dciCapacity, m_dciUtilisation, m_gpuCaps})
        e->setEnabled(!locked);
    m_batchFixed->setEnabled(!locked);
    m_batchMin->setEnabled(!locked && !m_batchFixed->isChecked());
    m_batchMax->setEnabled(!locked && !m_batchFixed->isChecked());
}

void ExploreSpaceEditor::setSpace(const core::SearchSpace& space)
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
    emit edited();
}

std::optional<core::SearchSpace> ExploreSpaceEditor::space(QString* error) const
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
    std::optional<core::SearchSpace> read = core::readSearchSpace(doc, s, sink);
    if (!read) {
        const std::vector<core::Diagnostic> errors = sink.takeErrors();
        return fail(errors.empty() ? tr("the space cannot be read")
                                   : diagnosticText(errors.front()));
    }
    return read;
}

} // namespace archipelago::app
