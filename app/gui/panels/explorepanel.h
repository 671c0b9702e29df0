// The Explore dock (docs/explore.md, "The Explore panel"): the design-space search of
// core/explore run from the window. On the left the space: each dimension a checkbox (varied or
// kept at the scenario's value) and its values as text ("1, 2, 4, 8"; "clos/rail-only" for one
// kind per datacenter), the constraints below, starting from the engine's default space for the
// open scenario (Reset). Run sweeps off the UI thread (document/sweeprunner.h) with a progress
// bar, the rate and Cancel; the counts say what became of every point. In the middle a scatter
// of every evaluated point with the Pareto front on top (views::ParetoScatter), on the right the
// top points per objective (views::SweepTopTable).
// A click or a row previews a point (its scenario evaluated in full and shown in the plots and
// the comparison beside the current design, the document untouched) until cleared; Pin pins it
// and Apply makes it the current design, each one undo step. The last sweep is recorded in the
// document (Document::sweep, explore/sweeprecord.h) and shown again when the file is opened.
// Above the results, the live front (document/livefront.h): what the background sweep of the
// default space found after the last edit, with Preview for the design it names.
#pragma once

#include "common/evaluateddesign.h"
#include "document/changeevent.h"
#include "document/livefront.h"
#include "document/sweeprunner.h"
#include "explore/sweep.h"
#include "explore/sweepsave.h"
#include "model/catalog.h"

#include <QList>
#include <QWidget>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

namespace archipelago::views {
class ParetoScatter;
class SweepTopTable;
} // namespace archipelago::views

namespace archipelago::app {

class Document;
class EditController;
class ExploreSpaceEditor;

class ExplorePanel : public QWidget
{
    Q_OBJECT

public:
    ExplorePanel(Document* document, EditController* edits, QWidget* parent = nullptr);
    ~ExplorePanel() override;

    // The space the editor describes, or nullopt with the reason in the user's words.
    std::optional<core::SearchSpace> space(QString* error = nullptr) const;
    // The editor set to the engine's default space for the document's scenario.
    void resetSpace();
    // Fills the editor from `space` (dimensions with more than one value checked).
    void setSpace(const core::SearchSpace& space);
    // The text field and the checkbox of a dimension, by its --space key ("tp", "schedule").
    QLineEdit* valuesEdit(const QString& key) const;
    QCheckBox* dimensionCheck(const QString& key) const;

    // Starts a sweep of the editor's space around the document's scenario; false (with the
    // reason shown) when the space is invalid or a sweep is running.
    bool run();
    void cancel();
    bool isRunning() const;
    // Runs and waits, processing events (the screenshot, tests); false when it did not run.
    bool runAndWait(int timeoutMs = 120'000);

    // What the last sweep found (none before the first).
    bool hasResult() const { return m_result.has_value(); }
    // The sweep shown (run here, or read back from the document's saved section); nullptr when
    // there is none (File > Export Data).
    const core::SweepResult* lastResult() const { return m_result ? &*m_result : nullptr; }
    const core::SweepCounts& counts() const { return m_result->counts; }
    bool lastRunCancelled() const { return m_result && m_result->cancelled; }
    const std::vector<core::SweepSample>& samples() const { return m_samples; }
    const std::vector<core::SweepPoint>& topBy(core::SweepObjective objective) const;
    QString countsText() const;
    QString message() const;

    // The design points marked on the scatter (the window's pins and current design).
    void setDesignPoints(const QList<views::EvaluatedDesign>& pinned,
                         const views::EvaluatedDesign& current);

    // Previews the point of odometer index `index` (of the last sweep's space); false when it
    // cannot be made (pruned before evaluation, no sweep).
    bool previewPoint(std::uint64_t index);
    void clearPreview();
    const std::optional<views::EvaluatedDesign>& preview() const { return m_preview; }
    // The live front shown above the results (nullptr: none). Not owned.
    void setLiveFront(LiveFront* front);
    QString liveText() const;
    // Previews the design the live front names; false when it names none.
    bool previewLive();
    // Pins the previewed point / makes it the current design (one undo step each).
    bool pinPreview();
    bool applyPreview();

    views::ParetoScatter* scatter() const { return m_scatter; }
    views::SweepTopTable* topTable() const { return m_table; }

signals:
    // The point previewed (shown by the window's plots and comparison), or cleared.
    void previewChanged(const std::optional<archipelago::views::EvaluatedDesign>& preview);
    void statusMessage(const QString& message);
    // A sweep of this panel started or ended (the live front waits meanwhile).
    void runningChanged(bool running);

private:
    QWidget* makeEditor();
    QWidget* makeResults();
    void updateSpaceSize();
    void onDocumentChanged(const ChangeEvent& event);
    // Shows the document's saved sweep and its space (or the default space when it has none).
    void showDocumentSweep();
    void onProgress(const core::SweepProgress& progress);
    void onFinished(std::shared_ptr<SweepRunner::Outcome> outcome);
    void showResult(const core::SweepResult& result, std::vector<core::SweepSample> samples);
    void refreshTable();
    void refreshMarkers();
    void setRunning(bool running);
    void showMessage(const QString& text, bool error);
    QString describe(std::uint64_t index) const;
    // Previews `made`, a point of `space` around `base`, evaluated in full.
    bool showPreview(const core::Catalog& catalog, const core::SweepPointScenario& made);
    void showLive();

    Document* m_document;
    EditController* m_edits;
    ExploreSpaceEditor* m_space = nullptr;
    QLabel* m_spaceSize = nullptr;
    QLabel* m_message = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_resetButton = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_rate = nullptr;
    QLabel* m_counts = nullptr;
    QComboBox* m_axes = nullptr;
    QComboBox* m_objective = nullptr;
    views::ParetoScatter* m_scatter = nullptr;
    views::SweepTopTable* m_table = nullptr;
    QLabel* m_previewLabel = nullptr;
    QPushButton* m_pinButton = nullptr;
    QPushButton* m_applyButton = nullptr;
    QPushButton* m_clearButton = nullptr;
    QWidget* m_editor = nullptr;
    QLabel* m_live = nullptr;
    QPushButton* m_livePreview = nullptr;
    LiveFront* m_liveFront = nullptr;

    SweepRunner* m_runner = nullptr; // the running sweep
    bool m_discardRun = false;       // the running sweep belongs to a document no longer open
    bool m_runningShown = false;     // what setRunning last showed
    std::uint64_t m_generation = 0;  // the document shown (Document::generation)
    // The saved sweep whose results are on screen (shown from the document, or recorded by the
    // run shown); null when the results on screen were never saved, or there are none.
    std::shared_ptr<const core::SavedSweep> m_onScreen;
    // The space shown is the default for the document (Reset, or a document with no saved
    // sweep) and the user has not edited it: it follows the document's edits.
    bool m_spaceFollowsDocument = true;
    bool m_settingSpace = false; // setSpace fills the fields (not the user's edit)
    // The last sweep: what was searched, around what, and what it found.
    std::optional<core::SweepResult> m_result;
    core::SearchSpace m_sweptSpace;
    core::Scenario m_sweptBase;
    std::vector<core::SweepSample> m_samples;
    std::optional<views::EvaluatedDesign> m_preview;
    core::DesignPoint m_previewKnobs; // the previewed point of the swept space, with its index
    QList<views::EvaluatedDesign> m_pinned;
    std::optional<views::EvaluatedDesign> m_current;
};

} // namespace archipelago::app
