#include "propertyeditor/propertyeditorregion.h"

#include "common/format.h"
#include "common/scenariotext.h"
#include "model/dcilink.h"
#include "model/scenariolimits.h"

#include <QFormLayout>
#include <QLabel>
#include <QPushButton>

#include <algorithm>
#include <limits>
#include <map>
#include <vector>

namespace archipelago::views {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

constexpr double kUnreachable = std::numeric_limits<double>::infinity();

// Shortest fibre distance between every two datacenters over the DCI links (Floyd-Warshall on
// a few dozen buildings), indexed as the topology lists them.
std::vector<std::vector<double>> shortestKm(const core::Topology& t)
{
    const std::size_t n = t.datacenters.size();
    std::vector<std::vector<double>> d(n, std::vector<double>(n, kUnreachable));
    std::map<core::Id, std::size_t> index;
    for (std::size_t i = 0; i < n; ++i) {
        index[t.datacenters[i].id] = i;
        d[i][i] = 0.0;
    }
    for (const core::DciLink& link : t.links) {
        const auto a = index.find(link.a);
        const auto b = index.find(link.b);
        if (a == index.end() || b == index.end())
            continue;
        double& ab = d[a->second][b->second];
        ab = std::min(ab, link.distanceKm);
        d[b->second][a->second] = ab;
    }
    for (std::size_t k = 0; k < n; ++k)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j)
                d[i][j] = std::min(d[i][j], d[i][k] + d[k][j]);
    return d;
}

core::Id regionOf(const core::Topology& t, core::Id datacenter)
{
    const core::Datacenter* dc = core::findDatacenter(t, datacenter);
    return dc ? dc->regionId : core::Id{-1};
}

} // namespace

QString nameRefusal(const QString& name, const QStringList& taken, const QString& what)
{
    if (name.trimmed().isEmpty())
        return QObject::tr("A %1 needs a name: the canvas, the tree, links and reports show it.")
            .arg(what);
    if (taken.contains(name.trimmed()))
        return QObject::tr("Another %1 is named %2: give each its own name, so that links and "
                           "reports can tell them apart.")
            .arg(what, name.trimmed());
    return {};
}

RegionEditor::RegionEditor(EditSink* sink, QWidget* parent)
    : PropertyEditorPage(sink, tr("Region"), parent)
{
    QFormLayout* form = addSection(tr("Region"));
    m_name = new TextField;
    m_name->setMaxLength(core::kMaxNameChars); // what the reader takes back
    m_nameRow = addField(form, tr("Name"), m_name,
                         tr("Name of the region (a metro area or a site), shown on the canvas, "
                            "in the tree and in reports."));
    connect(m_name, &TextField::committed, this, &RegionEditor::rename);
    m_datacenters = addNote(form, tr("Datacenters"),
                            tr("The buildings in the region. To move one here, select it and "
                               "choose this region in its Region box."));
    m_links = addNote(form, tr("Other regions"),
                      tr("For each other region: the shortest fibre distance over the DCI "
                         "links and the capacity of the links joining the two directly. Edit a "
                         "link's distance and capacity on its own page."));

    m_delete = new QPushButton(tr("Delete Region"));
    m_deleteRow = addField(form, tr("Delete"), m_delete,
                           tr("Delete the region; its datacenters move to the region its shortest "
                              "DCI link reaches. Undo puts everything back."));
    connect(m_delete, &QPushButton::clicked, this, &RegionEditor::remove);
}

const core::Region* RegionEditor::region() const
{
    return ids().isEmpty() ? nullptr : core::findRegion(scenario().topology, ids().front());
}

core::Id RegionEditor::successorRegion(const core::Topology& t, core::Id regionId)
{
    core::Id best = -1;
    double bestKm = kUnreachable;
    for (const core::DciLink& link : t.links) {
        const core::Id ra = regionOf(t, link.a);
        const core::Id rb = regionOf(t, link.b);
        const core::Id other = ra == regionId ? rb : rb == regionId ? ra : core::Id{-1};
        if (other < 0 || other == regionId || !core::findRegion(t, other))
            continue;
        if (link.distanceKm < bestKm) {
            bestKm = link.distanceKm;
            best = other;
        }
    }
    if (best >= 0)
        return best;
    for (const core::Region& r : t.regions)
        if (r.id != regionId)
            return r.id;
    return -1;
}

void RegionEditor::rename(const QString& typed)
{
    const core::Region* current = region();
    if (!current)
        return;
    QStringList taken;
    for (const core::Region& r : scenario().topology.regions)
        if (r.id != current->id)
            taken << qs(r.name);
    const QString refusal = nameRefusal(typed, taken, tr("region"));
    if (!refusal.isEmpty()) {
        m_nameRow->refuse({refusal});
        m_name->load(qs(current->name));
        return;
    }
    EditProposal proposal;
    proposal.candidate = scenario();
    for (core::Region& r : proposal.candidate.topology.regions)
        if (r.id == current->id)
            r.name = typed.trimmed().toStdString();
    proposal.fields = m_nameRow->pointers();
    proposal.row = m_nameRow;
    sink()->propose(proposal);
}

void RegionEditor::remove()
{
    const core::Region* current = region();
    if (!current)
        return;
    const core::Id id = current->id;
    const core::Id successor = successorRegion(scenario().topology, id);
    if (successor < 0) {
        m_deleteRow->refuse({tr("A topology keeps at least one region: rename this one instead.")});
        return;
    }
    EditProposal proposal;
    proposal.candidate = scenario();
    core::Topology& t = proposal.candidate.topology;
    for (core::Datacenter& dc : t.datacenters)
        if (dc.regionId == id)
            dc.regionId = successor;
    std::erase_if(t.regions, [id](const core::Region& r) { return r.id == id; });
    proposal.fields = {QStringLiteral("/topology/regions")};
    proposal.row = m_deleteRow;
    sink()->propose(proposal);
}

void RegionEditor::loadValues()
{
    const core::Region* current = region();
    if (!current)
        return;
    const core::Topology& t = scenario().topology;
    setTitle(tr("Region: %1").arg(qs(current->name)));
    m_name->load(qs(current->name));
    std::size_t index = 0;
    for (std::size_t i = 0; i < t.regions.size(); ++i)
        if (t.regions[i].id == current->id)
            index = i;
    m_nameRow->setPointers({QStringLiteral("/topology/regions/%1/name").arg(index)});

    QStringList names;
    std::int64_t gpus = 0;
    for (const core::Datacenter& dc : t.datacenters) {
        if (dc.regionId != current->id)
            continue;
        names << qs(dc.name);
        gpus += core::gpusInDatacenter(dc);
    }
    m_datacenters->setText(
        names.isEmpty() ? tr("none yet: choose this region in a datacenter's "
                             "Region box to move it here")
                        : tr("%1 · %2").arg(names.join(QStringLiteral(", ")), formatGpus(gpus)));

    // Per other region: the shortest distance between any two of their buildings, and the
    // links that join the two directly.
    const std::vector<std::vector<double>> km = shortestKm(t);
    QStringList lines;
    for (const core::Region& other : t.regions) {
        if (other.id == current->id)
            continue;
        double nearest = kUnreachable;
        for (std::size_t i = 0; i < t.datacenters.size(); ++i)
            for (std::size_t j = 0; j < t.datacenters.size(); ++j)
                if (t.datacenters[i].regionId == current->id &&
                    t.datacenters[j].regionId == other.id)
                    nearest = std::min(nearest, km[i][j]);
        double directGbps = 0.0;
        int direct = 0;
        for (const core::DciLink& link : t.links) {
            const core::Id ra = regionOf(t, link.a);
            const core::Id rb = regionOf(t, link.b);
            if ((ra == current->id && rb == other.id) || (rb == current->id && ra == other.id)) {
                directGbps += core::dciCapacityGbps(link);
                ++direct;
            }
        }
        QString line = qs(other.name) + QStringLiteral(": ");
        if (nearest == kUnreachable)
            line += tr("not linked");
        else if (direct == 0)
            line += tr("%1 through other regions").arg(formatKm(nearest));
        else
            line += tr("%1, %2 over %3")
                        .arg(formatKm(nearest), formatGbps(directGbps),
                             countOf(direct, tr("link"), tr("links")));
        lines << line;
    }
    m_links->setText(lines.isEmpty() ? tr("none: the only region") : lines.join(QLatin1Char('\n')));

    const bool last = t.regions.size() <= 1;
    m_delete->setEnabled(!last);
    m_delete->setToolTip(last ? tr("A topology keeps at least one region: rename this one instead.")
                              : QString());
    m_deleteRow->setPointers({});
}

} // namespace archipelago::views
