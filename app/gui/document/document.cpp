#include "document/document.h"

#include "io/calibrationio.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QUndoStack>

#include <algorithm>

namespace archipelago::app {

namespace {

core::Diagnostic fileError(const QString& path, const QString& message)
{
    core::Diagnostic d;
    d.file = path.toStdString();
    d.message = message.toStdString();
    return d;
}

// Files on disk are read by core, through the one bounded, regular-files-only reader the CLI
// uses too; only Qt resources (":/presets/default.json"), which live inside the executable, are
// read here.
core::LoadResult readScenario(const QString& path)
{
    if (!path.startsWith(QLatin1Char(':')))
        return core::loadScenarioFile(QFile::encodeName(path).toStdString());
    core::LoadResult result;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        result.errors.push_back(fileError(path, file.errorString()));
        return result;
    }
    // One byte past the limit, which parseScenario then refuses.
    const QByteArray bytes = file.read(static_cast<qint64>(core::kMaxFileBytes) + 1);
    return core::parseScenario(
        std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
        path.toStdString());
}

} // namespace

Document::Document(QObject* parent)
    : QObject(parent)
    , m_undoStack(new QUndoStack(this))
{
    connect(m_undoStack, &QUndoStack::cleanChanged, this,
            [this](bool clean) { emit modifiedChanged(!clean); });
}

Document::~Document() = default;

QString Document::displayName() const
{
    return m_fileName.isEmpty() ? tr("Untitled") : QFileInfo(m_fileName).fileName();
}

bool Document::isModified() const
{
    return !m_undoStack->isClean();
}

std::vector<core::Diagnostic> Document::load(const QString& path, LoadMode mode)
{
    core::LoadResult result = readScenario(path);
    if (!result.ok()) {
        if (result.errors.empty()) // a loader that returns nothing still gets a message
            result.errors.push_back(fileError(path, QStringLiteral("could not be read")));
        return result.errors;
    }
    m_loadWarnings = std::move(result.warnings);
    // A calibration is held by its absolute path, which every state of the history keeps
    // valid whatever the document is saved as; serialized() writes it relative to the file.
    const auto absolute = [&](core::Scenario& s) {
        if (s.calibration)
            s.calibration->file =
                core::relocatedCalibrationPath(s.calibration->file, path.toStdString(), "");
    };
    absolute(*result.scenario);
    for (core::PinnedScenario& p : result.pins)
        absolute(p.scenario);
    // The saved sweep, read once; a section that cannot be read is kept (and saved back as it
    // was) with its errors, which the Explore panel shows.
    core::SweepRecord sweep =
        core::readSweepRecord(std::move(result.explore), *result.scenario, path.toStdString());
    reset(std::move(*result.scenario), mode == LoadMode::Open ? path : QString(),
          std::move(result.pins), std::move(sweep));
    return {};
}

std::vector<core::Diagnostic> Document::recover(const QString& autosavePath,
                                                const QString& fileName)
{
    std::vector<core::Diagnostic> errors = load(autosavePath, LoadMode::Template);
    if (!errors.empty())
        return errors;
    setFileName(fileName);
    m_undoStack->resetClean(); // no state of the history matches a file on disk
    emit modifiedChanged(true);
    return {};
}

void Document::reset(core::Scenario scenario, const QString& fileName,
                     std::vector<core::PinnedScenario> pins, core::SweepRecord sweep)
{
    m_undoStack->clear(); // commands refer to the old scenario's objects
    m_undoStack->setClean();
    m_scenario = std::move(scenario);
    m_pins = std::move(pins);
    m_sweep = std::move(sweep);
    ++m_generation;
    setFileName(fileName);
    emit changed({ChangeEvent::Kind::Structure});
}

std::string Document::serialized(const QString& forPath) const
{
    const auto relocate = [&](core::Scenario& s) {
        if (s.calibration)
            s.calibration->file = core::relocatedCalibrationPath(
                s.calibration->file, m_fileName.toStdString(), forPath.toStdString());
    };
    if (!m_scenario.calibration &&
        std::none_of(m_pins.begin(), m_pins.end(),
                     [](const core::PinnedScenario& p) { return p.scenario.calibration; }))
        return core::serializeScenario(m_scenario, m_pins, m_sweep.section);
    core::Scenario scenario = m_scenario;
    std::vector<core::PinnedScenario> pins = m_pins;
    relocate(scenario);
    for (core::PinnedScenario& p : pins)
        relocate(p.scenario);
    return core::serializeScenario(scenario, pins, m_sweep.section);
}

bool Document::save(const QString& path, QString* errorMessage)
{
    const std::string text = serialized(path);
    QSaveFile file(path);
    const bool written = file.open(QIODevice::WriteOnly) &&
                         file.write(text.data(), static_cast<qint64>(text.size())) ==
                             static_cast<qint64>(text.size()) &&
                         file.commit();
    if (!written) {
        if (errorMessage)
            *errorMessage = file.errorString();
        return false;
    }
    setFileName(path);
    m_undoStack->setClean();
    return true;
}

void Document::setFileName(const QString& fileName)
{
    if (m_fileName == fileName)
        return;
    m_fileName = fileName;
    emit fileNameChanged(m_fileName);
}

bool Document::setDatacenterPositions(
    const std::vector<std::pair<core::Id, std::pair<double, double>>>& positions)
{
    bool moved = false;
    for (const auto& [id, position] : positions) {
        auto& dcs = m_scenario.topology.datacenters;
        auto it = std::find_if(dcs.begin(), dcs.end(),
                               [id = id](const core::Datacenter& dc) { return dc.id == id; });
        if (it == dcs.end() || (it->x == position.first && it->y == position.second))
            continue;
        it->x = position.first;
        it->y = position.second;
        moved = true;
    }
    if (moved)
        notify({ChangeEvent::Kind::Look,
                positions.size() == 1 ? positions.front().first : core::Id{-1}});
    return moved;
}

std::optional<RemovedDatacenter> Document::removeDatacenter(core::Id id)
{
    auto& dcs = m_scenario.topology.datacenters;
    auto it = std::find_if(dcs.begin(), dcs.end(),
                           [id](const core::Datacenter& dc) { return dc.id == id; });
    if (it == dcs.end())
        return std::nullopt;
    RemovedDatacenter removed;
    removed.index = static_cast<std::size_t>(it - dcs.begin());
    removed.datacenter = std::move(*it);
    dcs.erase(it);
    auto& links = m_scenario.topology.links;
    std::vector<core::DciLink> kept;
    for (std::size_t i = 0; i < links.size(); ++i) {
        if (links[i].a == id || links[i].b == id)
            removed.links.emplace_back(i, links[i]);
        else
            kept.push_back(links[i]);
    }
    links = std::move(kept);
    notify({ChangeEvent::Kind::Structure, id});
    return removed;
}

void Document::restoreDatacenter(const RemovedDatacenter& removed)
{
    auto& dcs = m_scenario.topology.datacenters;
    const std::size_t index = std::min(removed.index, dcs.size());
    dcs.insert(dcs.begin() + static_cast<std::ptrdiff_t>(index), removed.datacenter);
    auto& links = m_scenario.topology.links;
    for (const auto& [linkIndex, link] : removed.links) // ascending: each lands where it was
        links.insert(links.begin() + static_cast<std::ptrdiff_t>(std::min(linkIndex, links.size())),
                     link);
    notify({ChangeEvent::Kind::Structure, removed.datacenter.id});
}

std::optional<std::pair<std::size_t, core::DciLink>> Document::removeLink(core::Id id)
{
    auto& links = m_scenario.topology.links;
    auto it = std::find_if(links.begin(), links.end(),
                           [id](const core::DciLink& link) { return link.id == id; });
    if (it == links.end())
        return std::nullopt;
    std::pair<std::size_t, core::DciLink> removed{static_cast<std::size_t>(it - links.begin()),
                                                  *it};
    links.erase(it);
    notify({ChangeEvent::Kind::Structure, id});
    return removed;
}

void Document::insertLink(std::size_t index, const core::DciLink& link)
{
    auto& links = m_scenario.topology.links;
    links.insert(links.begin() + static_cast<std::ptrdiff_t>(std::min(index, links.size())), link);
    notify({ChangeEvent::Kind::Structure, link.id});
}

void Document::insertPin(std::size_t index, const core::PinnedScenario& pin)
{
    m_pins.insert(m_pins.begin() + static_cast<std::ptrdiff_t>(std::min(index, m_pins.size())),
                  pin);
    notify({ChangeEvent::Kind::Pins});
}

std::optional<core::PinnedScenario> Document::removePin(std::size_t index)
{
    if (index >= m_pins.size())
        return std::nullopt;
    core::PinnedScenario removed = std::move(m_pins[index]);
    m_pins.erase(m_pins.begin() + static_cast<std::ptrdiff_t>(index));
    notify({ChangeEvent::Kind::Pins});
    return removed;
}

bool Document::setPinName(std::size_t index, const std::string& name)
{
    if (index >= m_pins.size() || m_pins[index].name == name)
        return false;
    m_pins[index].name = name;
    notify({ChangeEvent::Kind::Pins});
    return true;
}

bool Document::setSweep(core::SweepRecord sweep)
{
    if (sweep.section == m_sweep.section)
        return false;
    m_sweep = std::move(sweep);
    notify({ChangeEvent::Kind::Sweep});
    return true;
}

void Document::notify(const ChangeEvent& event)
{
    if (m_batchDepth == 0) {
        emit changed(event);
        return;
    }
    m_batched = m_batched ? m_batched->mergedWith(event) : event;
}

Document::ChangeBatch::ChangeBatch(Document* document)
    : m_document(document)
{
    ++m_document->m_batchDepth;
}

Document::ChangeBatch::~ChangeBatch()
{
    if (--m_document->m_batchDepth > 0 || !m_document->m_batched)
        return;
    const ChangeEvent event = *m_document->m_batched;
    m_document->m_batched.reset();
    emit m_document->changed(event);
}

} // namespace archipelago::app
