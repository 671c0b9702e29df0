// Turns the views' intents into undo commands on the Document (STYLE.md: views never see the
// document). Every edit is built as the scenario it would produce, validated with the loader's
// checks (editing/editvalidation.h) and pushed as one step (scenarioedit.h); an edit that would
// leave the document invalid is refused: nothing is pushed and refused() says why. When the GPUs or
// the degrees change, the placement (core::repairPlacement) and (if the edit left it alone,
// and the user agrees through setBatchConfirmation) the global batch follow; adjusted() says
// what moved or was dropped. Each property edit's undo
// text names the field and its new value ("Set TP to 8", edittext.h). The property editor, the
// canvas, the layout view and the Edit menu's quick edits all come through here.
#pragma once

#include "editing/editvalidation.h"
#include "io/scenarioio.h"
#include "model/scenario.h"

#include <QColor>
#include <QList>
#include <QObject>
#include <QPointF>

#include <functional>
#include <string>
#include <vector>

namespace archipelago::app {

class Document;

class EditController : public QObject
{
    Q_OBJECT

public:
    explicit EditController(Document* document, QObject* parent = nullptr);

    Document* document() const { return m_document; }

    // Each returns true when the edit was applied (or changed nothing), false when refused.
    // `target` is the scenario the action makes; its undo text is `text`; `fields`, the JSON
    // pointers it set, focus the refusal's reason (core::checkEdit).
    // `alsoDone` says what the action changed beyond itself (said with the repair's notes).
    bool apply(const core::Scenario& target, const QString& text, bool repairPlacement,
               const std::vector<std::string>& fields = {}, const QString& alsoDone = {});
    // A property edit (views::PropertyEditor::edited): the candidate scenario as the user's edit
    // makes it, checked by the same core::checkEdit the editor judged it with, its undo text
    // named after what changed (edittext.h). A datacenter it grows past what its fabric holds
    // gets the fabric a new datacenter would (fabricHoldingGpus), said by adjusted().
    bool applyEdit(const core::Scenario& candidate, const std::vector<std::string>& fields,
                   bool repairPlacement);
    // One part replaced, through applyEdit (the Edit menu's quick edits, scripts, tests).
    bool setWorkload(const core::Workload& workload);
    bool setParallelism(const core::Parallelism& parallelism);
    bool setPlacement(const core::Placement& placement);
    bool setSchedule(const core::Schedule& schedule);
    bool setDatacenters(const QList<core::Datacenter>& datacenters);
    bool setLinks(const QList<core::DciLink>& links);
    // The scenario's name and description (free text; the model is unaffected).
    bool setScenarioInfo(const QString& name, const QString& description);
    bool setPipelineParallel(int pp);
    bool setLayersPerStage(const std::vector<int>& layersPerStage);
    bool setStageDatacenter(int shardIndex, int stage, core::Id datacenter);

    // Canvas intents. Moves of one drag (same dragId) merge into one undo step.
    void moveDatacenters(const QList<core::Id>& ids, const QList<QPointF>& positions, int dragId);
    bool addDatacenter(QPointF position, core::Id templateId);
    // A new region holding a copy of datacenter `templateId` (TopologyEdits::withRegionAdded).
    bool addRegion(QPointF position, core::Id templateId);
    bool addPod(core::Id datacenter);
    bool connectDatacenters(core::Id a, core::Id b);
    bool remove(const QList<core::Id>& datacenters, const QList<core::Id>& links,
                const QList<core::Id>& pods);

    // Pins: name empty = "Pin N"; colour invalid = the next colour of the palette.
    void pin(const core::Scenario& scenario, QString name = {}, QColor color = {});
    void removePin(int index);
    void renamePin(int index, const QString& name);
    bool restorePin(int index);
    // The colour a pin is drawn in (its own, or one of the palette by index).
    static QColor pinColor(const core::PinnedScenario& pin, int index);
    // Asked when an edit is valid only with a different global batch (the repair fitted it to
    // the new DP). ChangeBatch applies the edit and the batch change as one undo step; KeepBatch
    // applies it with the batch as it was and fewer data-parallel replicas (the question says how
    // many GPUs that leaves idle; offered only when such a placement is valid); Cancel refuses
    // the edit. Without a confirmation (a controller with no window: scripts, tests) the batch
    // follows and adjusted() says so. A standing policy other than Ask answers without asking
    // (KeepBatch asks when the batch cannot be kept); a reply that says `remember` sets it.
    void setBatchConfirmation(std::function<BatchReply(const BatchQuestion&)> ask)
    {
        m_confirmBatch = std::move(ask);
    }
    BatchPolicy batchPolicy() const { return m_batchPolicy; }
    void setBatchPolicy(BatchPolicy policy);

signals:
    void refused(const QString& reason);
    // An edit was applied with a dependent quantity adjusted to keep the document valid
    // ("Add Pod: global batch 8 → 16 sequences to divide micro-batch 1 × DP 16").
    void adjusted(const QString& message);
    void batchPolicyChanged(archipelago::app::BatchPolicy policy);

private:
    bool refuse(const QString& reason);

    Document* m_document;
    std::function<BatchReply(const BatchQuestion&)> m_confirmBatch;
    BatchPolicy m_batchPolicy = BatchPolicy::Ask;
};

} // namespace archipelago::app
