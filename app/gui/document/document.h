// The scenario being edited, its file and its undo stack (after mapeditor/tiled
// src/tiled/document.h). "Modified" is derived from the undo stack's clean state, never kept by
// hand. Every edit is a QUndoCommand that calls the setters below; each setter skips no-op edits
// and emits changed() once.
#pragma once

#include "document/changeevent.h"
#include "explore/sweeprecord.h"
#include "io/scenarioio.h"
#include "model/scenario.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

class QUndoStack;

namespace archipelago::app {

// Locates one field of a scenario; returns nullptr when the object it belongs to is gone.
template <typename Value> using FieldAccessor = std::function<Value*(core::Scenario&)>;

// A datacenter taken out of the scenario together with the DCI links that touched it,
// with their positions, so that putting it back restores the scenario exactly.
struct RemovedDatacenter
{
    core::Datacenter datacenter;
    std::size_t index = 0;
    std::vector<std::pair<std::size_t, core::DciLink>> links; // ascending index
};

class Document : public QObject
{
    Q_OBJECT

public:
    explicit Document(QObject* parent = nullptr);
    ~Document() override;

    const core::Scenario& scenario() const { return m_scenario; }
    // Design points pinned for comparison; saved with the document ("pins" in the file).
    const std::vector<core::PinnedScenario>& pins() const { return m_pins; }
    // The last sweep saved with the document ("explore" in the file), read once when the file
    // is loaded; empty when there is none.
    const core::SweepRecord& sweep() const { return m_sweep; }
    // Which document is open: a new number each time one is loaded, recovered or made (reset),
    // so that a view can tell a new document from an edit of the same one.
    std::uint64_t generation() const { return m_generation; }
    QString fileName() const { return m_fileName; }
    bool isUntitled() const { return m_fileName.isEmpty(); }
    // The file's name without its folder, or "Untitled".
    QString displayName() const;
    QUndoStack* undoStack() const { return m_undoStack; }
    bool isModified() const;

    enum class LoadMode
    {
        Open,    // the document becomes the file
        Template // the document is an untitled copy of the file (presets, the default)
    };
    // Loads a scenario file (or a Qt resource). On failure returns the errors and leaves the
    // current scenario, file name and undo history untouched.
    std::vector<core::Diagnostic> load(const QString& path, LoadMode mode = LoadMode::Open);
    // Non-fatal findings of the last successful load (unknown keys, semantic warnings).
    const std::vector<core::Diagnostic>& loadWarnings() const { return m_loadWarnings; }
    // Replaces the whole scenario, the pins and the saved sweep and clears the history
    // (File > New).
    void reset(core::Scenario scenario, const QString& fileName = {},
               std::vector<core::PinnedScenario> pins = {}, core::SweepRecord sweep = {});
    // Loads an autosaved copy of `fileName` (empty: an untitled document): the document takes
    // the original file name and is modified until saved.
    std::vector<core::Diagnostic> recover(const QString& autosavePath, const QString& fileName);
    // The file's text as save(`forPath`) would write it (the scenario, its pins and its saved
    // sweep), a calibration named relative to `forPath`'s folder; "" (an autosaved copy or a
    // report's): named by its absolute path.
    std::string serialized(const QString& forPath = {}) const;

    // Groups the changes of one user action (a macro command): changed() is emitted once, when
    // the outermost batch ends, with the merged event.
    class ChangeBatch
    {
    public:
        explicit ChangeBatch(Document* document);
        ~ChangeBatch();
        ChangeBatch(const ChangeBatch&) = delete;
        ChangeBatch& operator=(const ChangeBatch&) = delete;

    private:
        Document* m_document;
    };
    // Writes atomically (QSaveFile). On success the document takes the file name and is clean.
    bool save(const QString& path, QString* errorMessage = nullptr);

    // ---- setters for undo commands only: each emits changed() once, unless it is a no-op.
    template <typename Value> std::optional<Value> value(const FieldAccessor<Value>& field) const;
    template <typename Value>
    bool setValue(const FieldAccessor<Value>& field, const Value& value, ChangeEvent event);
    bool setDatacenterPositions(
        const std::vector<std::pair<core::Id, std::pair<double, double>>>& positions);
    std::optional<RemovedDatacenter> removeDatacenter(core::Id id);
    void restoreDatacenter(const RemovedDatacenter& removed);
    std::optional<std::pair<std::size_t, core::DciLink>> removeLink(core::Id id);
    void insertLink(std::size_t index, const core::DciLink& link);
    void insertPin(std::size_t index, const core::PinnedScenario& pin);
    std::optional<core::PinnedScenario> removePin(std::size_t index);
    bool setPinName(std::size_t index, const std::string& name);
    // Emits a Sweep change unless `sweep` is the record already held (the same section).
    bool setSweep(core::SweepRecord sweep);

signals:
    void changed(const archipelago::app::ChangeEvent& event);
    void fileNameChanged(const QString& fileName);
    void modifiedChanged(bool modified);

private:
    void setFileName(const QString& fileName);
    void notify(const ChangeEvent& event);

    core::Scenario m_scenario;
    std::vector<core::PinnedScenario> m_pins;
    core::SweepRecord m_sweep;
    std::uint64_t m_generation = 0;
    int m_batchDepth = 0;
    std::optional<ChangeEvent> m_batched; // merged event of the open batch
    QString m_fileName;
    QUndoStack* m_undoStack = nullptr;
    std::vector<core::Diagnostic> m_loadWarnings;
};

template <typename Value>
std::optional<Value> Document::value(const FieldAccessor<Value>& field) const
{
    // The accessor only locates the field; nothing is written through it here.
    if (const Value* target = field(const_cast<core::Scenario&>(m_scenario)))
        return *target;
    return std::nullopt;
}

template <typename Value>
bool Document::setValue(const FieldAccessor<Value>& field, const Value& value, ChangeEvent event)
{
    Value* target = field(m_scenario);
    if (!target || *target == value)
        return false;
    *target = value;
    notify(event);
    return true;
}

} // namespace archipelago::app
