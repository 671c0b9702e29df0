// The live front (docs/explore.md, "The live front"): after every cost-affecting edit, once the
// evaluator has published the edited design's evaluation (its debounce is the front's), the
// default search space around the document's scenario is swept again in the background, the
// previous run cancelled, and what it found is published as a Finding: whether a design of
// that space trains faster than the current one, by how much and what it changes ("a design
// 4.1% faster exists: TP 8 PP 16 v 8"). Faster is the time to train the scenario's tokens, so
// that a point with another global batch or fewer GPUs compares fairly. The status bar and the
// Explore panel show it; one click previews the design there.
//
// One sweep at a time: an edit while one runs cancels it (the core stops after its batch) and
// the next starts when it has finished. The sweep leaves one core to the window (the plots
// redraw while it runs) and a finding always answers the latest edit (revision()).
#pragma once

#include "document/changeevent.h"
#include "document/sweeprunner.h"
#include "explore/searchspace.h"
#include "explore/sweep.h"
#include "model/scenario.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace archipelago::app {

class Document;
class Evaluator;

// The QSettings key of View > Live Front (on when absent).
inline constexpr char kLiveFrontSetting[] = "explore/liveFront";

class LiveFront : public QObject
{
    Q_OBJECT

public:
    struct Finding
    {
        enum class Kind
        {
            Faster,       // a feasible design trains faster than the current one
            Best,         // none of the space does: the current design is the fastest there
            Feasible,     // the current design does not fit or breaks a budget; `best` does
            NoneFeasible, // neither the current design nor any point of the space is feasible
            Failed        // the space could not be swept (SweepResult::error)
        };
        Kind kind = Kind::Best;
        std::uint64_t revision = 0; // the document revision it was swept for
        core::Scenario base;
        core::SearchSpace space;
        core::SweepPoint current; // the base, evaluated as the search evaluates its points
        bool currentFeasible = false;
        std::optional<core::SweepPoint> best; // the fastest feasible point by time to train
        // 1 - best / current in time to train (Faster only).
        double gain = 0.0;
        std::vector<std::string> changes; // core::sweepPointChanges(current, best)
        std::uint64_t spacePoints = 0;
        std::uint64_t evaluated = 0;
        double wallS = 0.0;
        std::string error; // Failed

        bool canPreview() const { return best.has_value(); }
    };

    LiveFront(Document* document, Evaluator* evaluator, QObject* parent = nullptr);
    ~LiveFront() override;

    // Off: no sweep runs and the finding is cleared. On by default.
    void setEnabled(bool on);
    bool isEnabled() const { return m_enabled; }
    bool isSuspended() const { return m_suspended; }
    // A sweep runs (perhaps one being cancelled).
    bool isSearching() const { return m_runner->isRunning(); }
    // While suspended (a sweep of the Explore panel runs on the same cores) nothing starts;
    // an edit meanwhile is swept once resumed.
    void setSuspended(bool suspended);

    // The finding for the document as it is now; nullopt while a sweep for it runs, or when
    // off.
    const std::optional<Finding>& finding() const { return m_finding; }
    // True from an edit until its finding is published (false when off).
    bool isPending() const { return m_enabled && !m_finding; }
    // Bumped by every cost-affecting edit; Finding::revision names the one it answers.
    std::uint64_t revision() const { return m_revision; }

    // The status bar's and the Explore panel's sentence for `finding`, naming at most
    // `maxChanges` of its changes ("… and 3 more"; all when negative).
    static QString text(const Finding& finding, int maxChanges = -1);

signals:
    // A sweep for the latest edit has begun (the finding shown is out of date).
    void searching();
    // What the sweep for the latest edit found.
    void found(const archipelago::app::LiveFront::Finding& finding);
    // The front was switched off: nothing to show.
    void cleared();

private:
    void invalidate();
    // Starts the sweep of the document as it is now, unless one for it runs or has run.
    void start();
    void onFinished(const std::shared_ptr<SweepRunner::Outcome>& outcome);

    Document* m_document;
    Evaluator* m_evaluator;
    SweepRunner* m_runner;
    bool m_enabled = true;
    bool m_suspended = false;
    std::uint64_t m_revision = 1;
    std::uint64_t m_runningRevision = 0; // of the sweep running or last run
    std::optional<Finding> m_finding;
};

} // namespace archipelago::app

Q_DECLARE_METATYPE(archipelago::app::LiveFront::Finding)
