#include "editing/editcontroller.h"

#include "commands/datacentercommands.h"
#include "commands/movedatacenters.h"
#include "commands/pincommands.h"
#include "commands/scenarioedit.h"
#include "commands/valuecommands.h"
#include "common/colors.h"
#include "common/format.h"
#include "document/document.h"
#include "editing/edittext.h"
#include "editing/editvalidation.h"
#include "editing/topologyedits.h"
#include "evaluation/costmodel.h"
#include "evaluation/runcost.h"
#include "io/scenarioio.h"
#include "model/scenariolimits.h"

#include <QLocale>
#include <QUndoStack>

#include <algorithm>
#include <array>
#include <cmath>

namespace archipelago::app {

namespace {

// The part of the scenario an edit changed, for its undo text when describeEdit recognises no
// single field ("Change Workload", "Change 2 Datacenters").
QString partEdited(const core::Scenario& before, const core::Scenario& after)
{
    const auto changed = [](const auto& was, const auto& now) {
        qsizetype n = 0;
        for (const auto& object : now) {
            const auto same = std::find_if(was.begin(), was.end(),
                                           [&](const auto& old) { return old.id == object.id; });
            if (same == was.end() || !(*same == object))
                ++n;
        }
        return n;
    };
    if (before.workload != after.workload)
        return EditController::tr("Change Workload");
    if (before.parallelism != after.parallelism)
        return EditController::tr("Change Parallelism");
    if (const qsizetype n = changed(before.topology.datacenters, after.topology.datacenters))
        return n == 1 ? EditController::tr("Change Datacenter")
                      : EditController::tr("Change %1 Datacenters").arg(n);
    if (const qsizetype n = changed(before.topology.links, after.topology.links))
        return n == 1 ? EditController::tr("Change DCI Link")
                      : EditController::tr("Change %1 DCI Links").arg(n);
    if (before.schedule != after.schedule)
        return EditController::tr("Change Schedule");
    if (before.placement != after.placement)
        return EditController::tr("Change Placement");
    return EditController::tr("Change Scenario");
}

// What keeping the batch leaves idle, and what the idle GPUs cost: the cluster's price per GPU-hour
// without the network (evaluation/runcost.h), and `overTheRun` (an evaluation of the kept design,
// only when someone is asked) over its time to train with failures.
void describeIdleGpus(const core::Scenario& kept, BatchQuestion& question, bool overTheRun)
{
    question.keepDataParallel = core::dataParallel(kept);
    question.totalGpus = core::totalGpus(kept.topology);
    question.keepIdleGpus = question.totalGpus - question.keepDataParallel * kept.parallelism.tp *
                                                     kept.parallelism.cp * kept.parallelism.pp;
    const core::RunCost perHour =
        core::runCostPerHour(kept, core::effectiveCatalog(kept), 0.0, 0.0);
    if (!perHour.priced || question.keepIdleGpus <= 0)
        return;
    question.keepIdleUsdPerHour =
        perHour.usdPerGpuHour * static_cast<double>(question.keepIdleGpus);
    if (!overTheRun)
        return;
    const core::Evaluation ev = core::evaluate(kept);
    if (ev.ok && std::isfinite(ev.goodput.effectiveTimeToTrainS))
        question.keepIdleRunUsd =
            question.keepIdleUsdPerHour * ev.goodput.effectiveTimeToTrainS / 3600.0;
}

} // namespace

EditController::EditController(Document* document, QObject* parent)
    : QObject(parent)
    , m_document(document)
{}

void EditController::setBatchPolicy(BatchPolicy policy)
{
    if (policy == m_batchPolicy)
        return;
    m_batchPolicy = policy;
    emit batchPolicyChanged(policy);
}

bool EditController::refuse(const QString& reason)
{
    emit refused(reason);
    return false;
}

bool EditController::apply(const core::Scenario& target, const QString& text, bool repairPlacement,
                           const std::vector<std::string>& fields, const QString& alsoDone)
{
    const core::Scenario& current = m_document->scenario();
    if (target == current)
        return true;
    const ValidatedEdit edit = validateEdit(target, current, repairPlacement, fields);
    if (!edit.scenario)
        return refuse(tr("%1 refused: %2").arg(text, edit.reason));
    // The workload never changes as a side effect without asking (two pins with different
    // batches would compare different jobs): the batch change is part of the same undo step, and
    // its undo text says so. Without a confirmation (scripted callers, no one to ask) the batch
    // follows, said by adjusted().
    QString undoText = text;
    core::Scenario result = *edit.scenario;
    QString note = alsoDone.isEmpty() || edit.note.isEmpty()
                       ? alsoDone + edit.note
                       : alsoDone + QStringLiteral("; ") + edit.note;
    if (edit.changesGlobalBatch()) {
        const QLocale english(QLocale::English);
        // The other way out: the batch kept, fewer replicas, some GPUs idle.
        BatchQuestion question{text, edit.batchQuestion, edit.batchBefore, edit.batchAfter};
        const std::optional<core::Scenario> kept = keepingBatch(*edit.scenario, edit.batchBefore);
        // The user's standing answer (Edit > Global Batch When DP Changes) when it applies.
        const bool standing = m_batchPolicy == BatchPolicy::ChangeBatch ||
                              (m_batchPolicy == BatchPolicy::KeepBatch && kept);
        if (kept)
            describeIdleGpus(*kept, question, !standing && m_confirmBatch);
        BatchReply reply{BatchAnswer::ChangeBatch, false};
        if (standing)
            reply.answer = m_batchPolicy == BatchPolicy::KeepBatch ? BatchAnswer::KeepBatch
                                                                   : BatchAnswer::ChangeBatch;
        else if (m_confirmBatch)
            reply = m_confirmBatch(question);
        if (reply.answer == BatchAnswer::Cancel ||
            (reply.answer == BatchAnswer::KeepBatch && !kept))
            return refuse(tr("%1 cancelled: it needs global batch %2 instead of %3 sequences")
                              .arg(text, english.toString(edit.batchAfter),
                                   english.toString(edit.batchBefore)));
        if (reply.remember)
            setBatchPolicy(reply.answer == BatchAnswer::KeepBatch ? BatchPolicy::KeepBatch
                                                                  : BatchPolicy::ChangeBatch);
        const QString prefix = alsoDone.isEmpty() ? QString() : alsoDone + QStringLiteral("; ");
        const QString asSet =
            standing ? tr(" (as set in Edit > Global Batch When DP Changes)") : QString();
        if (reply.answer == BatchAnswer::KeepBatch) {
            result = *kept;
            undoText =
                tr("%1, DP %2 (Batch Kept)").arg(text, english.toString(question.keepDataParallel));
            note =
                tr("%1global batch kept at %2 sequences with DP %3: %4 of %5 GPUs idle%6%7")
                    .arg(prefix, english.toString(edit.batchBefore),
                         english.toString(question.keepDataParallel),
                         english.toString(question.keepIdleGpus),
                         english.toString(question.totalGpus),
                         question.keepIdleUsdPerHour > 0.0
                             ? tr(", %1 an hour").arg(views::formatUsd(question.keepIdleUsdPerHour))
                             : QString(),
                         asSet);
        } else {
            undoText = tr("%1 and Global Batch %2 → %3")
                           .arg(text, english.toString(edit.batchBefore),
                                english.toString(edit.batchAfter));
            if (standing)
                note = tr("%1global batch %2 → %3 sequences to divide into DP %4%5")
                           .arg(prefix, english.toString(edit.batchBefore),
                                english.toString(edit.batchAfter),
                                english.toString(core::dataParallel(result)), asSet);
        }
    }
    if (std::unique_ptr<QUndoCommand> command = makeScenarioEdit(m_document, result, undoText))
        m_document->undoStack()->push(command.release());
    if (!note.isEmpty())
        emit adjusted(tr("%1: %2").arg(text, note));
    return true;
}

bool EditController::applyEdit(const core::Scenario& candidate,
                               const std::vector<std::string>& fields, bool repairPlacement)
{
    const core::Scenario& before = m_document->scenario();
    // A datacenter grown past what its fabric holds gets the fabric a new one would get
    // (fabricHoldingGpus), unless this edit set the fabric itself.
    core::Scenario grown = candidate;
    QStringList notes;
    const core::Catalog catalog = core::effectiveCatalog(candidate);
    for (core::Datacenter& dc : grown.topology.datacenters) {
        const core::Datacenter* old = core::findDatacenter(before.topology, dc.id);
        if (!old || old->fabric != dc.fabric ||
            core::gpusInDatacenter(dc) <= core::gpusInDatacenter(*old))
            continue;
        const core::Fabric fabric = fabricHoldingGpus(dc, catalog);
        if (fabric == dc.fabric)
            continue;
        dc.fabric = fabric;
        notes << tr("%1's fabric grown to %2 tiers of %3 switches to hold its %4")
                     .arg(QString::fromStdString(dc.name))
                     .arg(fabric.tiers)
                     .arg(QString::fromStdString(fabric.switchModel.empty() ? std::string("default")
                                                                            : fabric.switchModel),
                          views::formatGpus(core::gpusInDatacenter(dc)));
    }
    // Likewise a link lengthened past its optic's or line system's reach, unless this edit set
    // them (TopologyEdits::keptInReach, as a new link gets).
    for (core::DciLink& link : grown.topology.links) {
        const core::DciLink* old = core::findLink(before.topology, link.id);
        if (old && old->distanceKm != link.distanceKm && old->optic == link.optic &&
            old->lineSystem == link.lineSystem)
            notes << TopologyEdits::keptInReach(link, catalog);
    }
    return apply(grown, describeEdit(before, candidate, partEdited(before, candidate)),
                 repairPlacement, fields, notes.join(QStringLiteral("; ")));
}

bool EditController::setWorkload(const core::Workload& workload)
{
    core::Scenario next = m_document->scenario();
    next.workload = workload;
    return applyEdit(next, {"/workload"}, true);
}

bool EditController::setParallelism(const core::Parallelism& parallelism)
{
    core::Scenario next = m_document->scenario();
    next.parallelism = parallelism;
    return applyEdit(next, {"/parallelism"}, true);
}

bool EditController::setPlacement(const core::Placement& placement)
{
    core::Scenario next = m_document->scenario();
    next.placement = placement;
    return applyEdit(next, {"/placement"}, false);
}

bool EditController::setSchedule(const core::Schedule& schedule)
{
    core::Scenario next = m_document->scenario();
    next.schedule = schedule;
    return applyEdit(next, {"/schedule"}, false);
}

bool EditController::setDatacenters(const QList<core::Datacenter>& datacenters)
{
    core::Scenario next = m_document->scenario();
    for (const core::Datacenter& edited : datacenters)
        for (core::Datacenter& dc : next.topology.datacenters)
            if (dc.id == edited.id)
                dc = edited;
    return applyEdit(next, {"/topology/datacenters"}, true);
}

bool EditController::setLinks(const QList<core::DciLink>& links)
{
    core::Scenario next = m_document->scenario();
    for (const core::DciLink& edited : links)
        for (core::DciLink& link : next.topology.links)
            if (link.id == edited.id)
                link = edited;
    return applyEdit(next, {"/topology/dci_links"}, false);
}

bool EditController::setScenarioInfo(const QString& name, const QString& description)
{
    core::Scenario next = m_document->scenario();
    next.name = name.toStdString();
    next.description = description.toStdString();
    return applyEdit(next, {"/name", "/description"}, false);
}

bool EditController::setPipelineParallel(int pp)
{
    // The degree alone: validateEdit re-makes the placement (and says what it dropped).
    core::Scenario next = m_document->scenario();
    next.parallelism.pp = pp;
    return apply(next, tr("Set Pipeline Parallel to %1").arg(pp), true);
}

bool EditController::setLayersPerStage(const std::vector<int>& layersPerStage)
{
    core::Placement placement = m_document->scenario().placement;
    placement.layersPerStage = layersPerStage;
    core::Scenario next = m_document->scenario();
    next.placement = placement;
    return apply(next, tr("Move Stage Boundary"), false);
}

bool EditController::setStageDatacenter(int shardIndex, int stage, core::Id datacenter)
{
    core::Scenario next = m_document->scenario();
    next.placement.shards = core::effectiveShards(next);
    if (shardIndex < 0 || static_cast<std::size_t>(shardIndex) >= next.placement.shards.size())
        return refuse(tr("No shard %1 in the placement").arg(shardIndex));
    auto& stages = next.placement.shards[static_cast<std::size_t>(shardIndex)].stageDatacenters;
    if (stage < 0 || static_cast<std::size_t>(stage) >= stages.size())
        return refuse(tr("No stage %1 in shard %2").arg(stage).arg(shardIndex));
    stages[static_cast<std::size_t>(stage)] = datacenter;
    return apply(next, tr("Move Stage %1").arg(stage), false);
}

void EditController::moveDatacenters(const QList<core::Id>& ids, const QList<QPointF>& positions,
                                     int dragId)
{
    std::vector<MoveDatacenters::Move> moves;
    for (qsizetype i = 0; i < ids.size() && i < positions.size(); ++i)
        moves.push_back({ids[i], positions[i].x(), positions[i].y()});
    m_document->undoStack()->push(new MoveDatacenters(m_document, std::move(moves), dragId));
}

bool EditController::addDatacenter(QPointF position, core::Id templateId)
{
    return apply(TopologyEdits::withDatacenterAdded(m_document->scenario(), position.x(),
                                                    position.y(), templateId),
                 tr("Add Datacenter"), true);
}

bool EditController::addRegion(QPointF position, core::Id templateId)
{
    const core::Scenario next = TopologyEdits::withRegionAdded(m_document->scenario(), position.x(),
                                                               position.y(), templateId);
    return apply(next,
                 tr("Add Region %1").arg(QString::fromStdString(next.topology.regions.back().name)),
                 true);
}

bool EditController::addPod(core::Id datacenter)
{
    return apply(TopologyEdits::withPodAdded(m_document->scenario(), datacenter), tr("Add Pod"),
                 true);
}

bool EditController::connectDatacenters(core::Id a, core::Id b)
{
    if (a == b)
        return refuse(tr("A DCI link joins two different datacenters"));
    return apply(TopologyEdits::withLinkAdded(m_document->scenario(), a, b), tr("Add DCI Link"),
                 false);
}

bool EditController::remove(const QList<core::Id>& datacenters, const QList<core::Id>& links,
                            const QList<core::Id>& pods)
{
    const int count = static_cast<int>(datacenters.size() + links.size() + pods.size());
    if (count == 0)
        return true;
    return apply(TopologyEdits::withRemoved(m_document->scenario(), datacenters, links, pods),
                 tr("Remove %n Object(s)", nullptr, count), true);
}

QColor EditController::pinColor(const core::PinnedScenario& pin, int index)
{
    const QColor own(QString::fromStdString(pin.color));
    if (!pin.color.empty() && own.isValid())
        return own;
    return views::pinPaletteColor(index);
}

void EditController::pin(const core::Scenario& scenario, QString name, QColor color)
{
    const std::vector<core::PinnedScenario>& pins = m_document->pins();
    // As many as the reader takes back (model/scenariolimits.h).
    if (pins.size() >= core::kMaxPins) {
        refuse(tr("At most %1 pins: remove one first, or compare more designs with a sweep")
                   .arg(core::kMaxPins));
        return;
    }
    auto used = [&pins](const std::string& text, bool byColor) {
        return std::any_of(pins.begin(), pins.end(), [&](const core::PinnedScenario& p) {
            return (byColor ? p.color : p.name) == text;
        });
    };
    if (name.trimmed().isEmpty())
        for (std::size_t n = pins.size() + 1; name.isEmpty(); ++n)
            if (!used(tr("Pin %1").arg(n).toStdString(), false))
                name = tr("Pin %1").arg(n);
    if (!color.isValid()) {
        color = views::pinPaletteColor(static_cast<int>(pins.size()));
        for (const char* candidate : views::kPinPalette)
            if (!used(candidate, true)) {
                color = QColor(QLatin1String(candidate));
                break;
            }
    }
    core::PinnedScenario pinned{name.trimmed().toStdString(),
                                color.name(QColor::HexRgb).toStdString(), scenario};
    m_document->undoStack()->push(new AddPin(m_document, std::move(pinned)));
}

void EditController::removePin(int index)
{
    if (index >= 0)
        m_document->undoStack()->push(new RemovePin(m_document, static_cast<std::size_t>(index)));
}

void EditController::renamePin(int index, const QString& name)
{
    // At most what the reader takes back (model/scenariolimits.h).
    const QString trimmed = name.trimmed().left(core::kMaxNameChars);
    if (index >= 0 && !trimmed.isEmpty())
        m_document->undoStack()->push(
            new RenamePin(m_document, static_cast<std::size_t>(index), trimmed.toStdString()));
}

bool EditController::restorePin(int index)
{
    if (index < 0 || static_cast<std::size_t>(index) >= m_document->pins().size())
        return refuse(tr("No pin %1").arg(index + 1));
    const core::PinnedScenario& pin = m_document->pins()[static_cast<std::size_t>(index)];
    // Restoring a pin keeps the document's saved sweep (it is beside the scenario).
    const core::Scenario target = pin.scenario;
    if (target == m_document->scenario())
        return true;
    // A pin passed the same validation when it was loaded or pinned; check again all the same.
    // A pin is restored as it is, never adjusted, and never with an error (whatever the
    // document has).
    const std::vector<core::Diagnostic> errors = scenarioErrors(target);
    const ValidatedEdit edit =
        errors.empty() ? validateEdit(target, m_document->scenario(), false) : ValidatedEdit{};
    if (!edit.scenario || !(*edit.scenario == target)) {
        const QString reason =
            errors.empty() ? edit.reason : QString::fromStdString(errors.front().message);
        return refuse(tr("Cannot restore “%1”: %2").arg(QString::fromStdString(pin.name), reason));
    }
    m_document->undoStack()->push(new SetScenario(
        m_document, target, tr("Restore “%1”").arg(QString::fromStdString(pin.name))));
    return true;
}

} // namespace archipelago::app
