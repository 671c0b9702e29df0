#include "propertyeditorlink.h"

#include "evaluation/costmodel.h"
#include "format.h"

#include <QFormLayout>
#include <QLabel>

#include <algorithm>
#include <initializer_list>

namespace archipelago::views {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

constexpr double kFibreSPerKm = 5e-6; // light in fibre, ~2/3 c (ARCHITECTURE.md section 2)

} // namespace

LinkEditor::LinkEditor(EditSink* sink, QWidget* parent)
    : PropertyEditorPage(sink, tr("DCI link"), parent)
{
    QFormLayout* path = addSection(tr("Path"));
    m_endpoints = addNote(path, tr("Joins"), tr("The two datacenters of the link."));
    addDouble(path, m_distance, tr("Distance (km)"),
              tr("Fibre path length in km, 0–20,000; adds 5 µs/km of latency each way."),
              QStringLiteral("distance_km"), 0.0, 20'000.0, 1, 1.0, &core::DciLink::distanceKm);
    DoubleField* equipment = nullptr;
    addDouble(path, equipment, tr("Equipment latency (µs)"),
              tr("Transponders, ROADMs and switches at both ends, in µs, one way."),
              QStringLiteral("equipment_latency_s"), 0.0, 1e6, 1, 1e6,
              &core::DciLink::equipmentLatencyS);
    m_equipmentLatency = equipment;
    m_latency =
        addNote(path, tr("One-way latency"), tr("Derived: 5 µs/km × distance + equipment."));

    QFormLayout* capacity = addSection(tr("Capacity"));
    m_wavelengths = new IntField(1, 4'096);
    m_wavelengthsRow = addField(capacity, tr("Wavelengths (λ)"), m_wavelengths,
                                tr("DWDM wavelengths on the link, 1–4,096."));
    connect(m_wavelengths, &IntField::committed, this, [this](int v) {
        editLinks(m_wavelengthsRow, [&](core::DciLink& l) { l.wavelengths = v; });
    });
    addDouble(capacity, m_rate, tr("Rate per wavelength (Gb/s)"),
              tr("Line rate of one wavelength in Gb/s (400ZR: 400)."),
              QStringLiteral("Gbps_per_wavelength"), 1.0, 1e5, 0, 1.0,
              &core::DciLink::gbpsPerWavelength);
    m_capacity = addNote(capacity, tr("Capacity (each way)"),
                         tr("Derived: wavelengths × rate per wavelength."));
    m_optic = new ChoiceField;
    m_opticRow = addField(capacity, tr("Optic"), m_optic,
                          tr("Coherent DCI optic from the catalog (reach, Gb/s)."));
    connect(m_optic, &ChoiceField::committed, this, [this](const QString& name) {
        editLinks(m_opticRow, [&](core::DciLink& l) { l.optic = name.toStdString(); });
    });
    m_lineSystem = new ChoiceField;
    m_lineSystemRow = addField(capacity, tr("Line system"), m_lineSystem,
                               tr("DWDM line system: terminals and in-line amplifiers."));
    connect(m_lineSystem, &ChoiceField::committed, this, [this](const QString& name) {
        editLinks(m_lineSystemRow, [&](core::DciLink& l) { l.lineSystem = name.toStdString(); });
    });

    QFormLayout* transport = addSection(tr("Transport"));
    m_transport = new ChoiceField;
    m_transport->setChoices(
        {{tr("RDMA over OTN (lossless)"), core::toString(core::DciTransport::RdmaOtn)},
         {tr("RoCE with PFC (long haul)"), core::toString(core::DciTransport::RocePfc)},
         {tr("Lossy IP (TCP-like)"), core::toString(core::DciTransport::LossyIp)}});
    m_transportRow = addField(transport, tr("Transport"), m_transport,
                              tr("What bounds the whole link: lossless RDMA over an optical "
                                 "transport network (bytes in flight / RTT), RoCE with PFC "
                                 "(also the switch headroom against the cable length), or TCP "
                                 "over a lossy IP network (window / RTT and loss)."));
    connect(m_transport, &ChoiceField::committed, this, [this](const QString& v) {
        const auto t = core::dciTransportFromString(v.toStdString());
        editLinks(m_transportRow, [&](core::DciLink& l) { l.transport = t.value_or(l.transport); });
    });
    addDouble(transport, m_loss, tr("Packet loss (%)"),
              tr("Packet loss rate in percent (lossy IP and RoCE with PFC)."),
              QStringLiteral("packet_loss_rate"), 0.0, 100.0, 4, 100.0,
              &core::DciLink::packetLossRate);
    addDouble(transport, m_window, tr("Window per connection (MiB)"),
              tr("Congestion / receive window of one connection in MiB (lossy IP only)."),
              QStringLiteral("window_bytes"), 0.001, 1e6, 3, 1.0 / (1024.0 * 1024.0),
              &core::DciLink::windowBytes);
    addDouble(transport, m_mss, tr("TCP segment (bytes)"),
              tr("TCP maximum segment size in bytes, 536–65,495 (1460 on a 1500-byte MTU, 8948 "
                 "on 9000; lossy IP only)."),
              QStringLiteral("mss_bytes"), 536.0, 65'495.0, 0, 1.0, &core::DciLink::mssBytes);
    addDouble(transport, m_outstanding, tr("In flight per connection (MiB)"),
              tr("Bytes one RDMA connection keeps outstanding in MiB: NCCL's receive buffer "
                 "(NCCL_BUFFSIZE, 4 MiB) or work requests × message size (RDMA only)."),
              QStringLiteral("outstanding_bytes"), 0.004, 1e6, 3, 1.0 / (1024.0 * 1024.0),
              &core::DciLink::outstandingBytes);
    addDouble(transport, m_headroom, tr("PFC headroom per port (MiB)"),
              tr("Switch buffer reserved per port and lossless priority in MiB; below the xoff "
                 "need of the cable length the port pauses early (RoCE with PFC only)."),
              QStringLiteral("headroom_bytes"), 0.001, 1e6, 3, 1.0 / (1024.0 * 1024.0),
              &core::DciLink::headroomBytes);
    m_connections = new IntField(1, 1'000'000);
    m_connectionsRow = addField(transport, tr("Connections per collective"), m_connections,
                                tr("Parallel connections (QPs or TCP streams) one collective "
                                   "spreads over the link; every GPU flow crossing it is at "
                                   "least one."));
    connect(m_connections, &IntField::committed, this, [this](int v) {
        editLinks(m_connectionsRow, [&](core::DciLink& l) { l.connectionsPerCollective = v; });
    });
}

FieldRow* LinkEditor::addDouble(QFormLayout* form, DoubleField*& field, const QString& label,
                                const QString& toolTip, const QString& key, double minimum,
                                double maximum, int decimals, double scale,
                                double core::DciLink::*member)
{
    field = new DoubleField(minimum, maximum, decimals);
    FieldRow* row = addField(form, label, field, toolTip);
    m_doubles.push_back({field, row, key, scale, member});
    connect(field, &DoubleField::committed, this, [this, row, scale, member](double shown) {
        editLinks(row, [&](core::DciLink& l) { l.*member = shown / scale; });
    });
    return row;
}

std::vector<const core::DciLink*> LinkEditor::selectedLinks() const
{
    std::vector<const core::DciLink*> links;
    for (core::Id id : ids())
        if (const core::DciLink* link = core::findLink(scenario().topology, id))
            links.push_back(link);
    return links;
}

void LinkEditor::editLinks(FieldRow* row, const std::function<void(core::DciLink&)>& apply)
{
    EditProposal proposal;
    proposal.intent = EditProposal::Intent::Links;
    proposal.candidate = scenario();
    for (core::DciLink& link : proposal.candidate.topology.links)
        if (ids().contains(link.id))
            apply(link);
    proposal.fields = row->pointers();
    proposal.row = row;
    proposal.ids = ids();
    sink()->propose(proposal);
}

void LinkEditor::loadValues()
{
    const core::Scenario& s = scenario();
    const auto links = selectedLinks();
    const auto dcName = [&](core::Id id) {
        const core::Datacenter* dc = core::findDatacenter(s.topology, id);
        return dc ? qs(dc->name) : QStringLiteral("#%1").arg(id);
    };
    QStringList pairs;
    for (const core::DciLink* link : links)
        pairs << tr("%1 ↔ %2").arg(dcName(link->a), dcName(link->b));
    m_endpoints->setText(pairs.join(QStringLiteral("\n")));
    setTitle(links.size() == 1 ? tr("DCI link: %1").arg(pairs.front())
                               : tr("%1 DCI links").arg(links.size()));

    const core::Catalog catalog = core::effectiveCatalog(s);
    std::vector<std::pair<QString, QString>> optics{{tr("(none)"), QString()}};
    for (const core::OpticSpec& o : catalog.optics)
        if (o.coherent)
            optics.emplace_back(tr("%1 (%2)").arg(qs(o.name), formatGbps(o.gbps)), qs(o.name));
    m_optic->setChoices(optics);
    std::vector<std::pair<QString, QString>> lineSystems{{tr("(none)"), QString()}};
    for (const core::LineSystemSpec& l : catalog.lineSystems)
        lineSystems.emplace_back(tr("%1 (≤ %2)").arg(qs(l.name), formatKm(l.maxReachKm)),
                                 qs(l.name));
    m_lineSystem->setChoices(lineSystems);

    for (const DoubleBinding& b : m_doubles) {
        b.field->load(commonValue(links, [&](auto* l) { return l->*(b.member) * b.scale; }));
        b.row->setPointers(linkPointers(s, ids(), QLatin1Char('/') + b.key));
    }
    m_wavelengths->load(commonValue(links, [](auto* l) { return l->wavelengths; }));
    m_optic->load(commonValue(links, [](auto* l) { return qs(l->optic); }));
    m_lineSystem->load(commonValue(links, [](auto* l) { return qs(l->lineSystem); }));
    const auto transport = commonValue(links, [](auto* l) { return l->transport; });
    m_transport->load(transport ? std::optional<QString>(QString::fromLatin1(toString(*transport)))
                                : std::nullopt);
    m_connections->load(commonValue(links, [](auto* l) { return l->connectionsPerCollective; }));
    m_wavelengthsRow->setPointers(linkPointers(s, ids(), QStringLiteral("/wavelengths")));
    m_opticRow->setPointers(linkPointers(s, ids(), QStringLiteral("/optic")));
    m_lineSystemRow->setPointers(linkPointers(s, ids(), QStringLiteral("/line_system")));
    m_transportRow->setPointers(linkPointers(s, ids(), QStringLiteral("/transport")));
    m_connectionsRow->setPointers(
        linkPointers(s, ids(), QStringLiteral("/connections_per_collective")));

    // Each field matters to some transports only.
    const auto anyOf = [&](std::initializer_list<core::DciTransport> kinds) {
        return std::any_of(links.begin(), links.end(), [&](auto* l) {
            return std::find(kinds.begin(), kinds.end(), l->transport) != kinds.end();
        });
    };
    using core::DciTransport;
    m_loss->setEnabled(anyOf({DciTransport::LossyIp, DciTransport::RocePfc}));
    m_window->setEnabled(anyOf({DciTransport::LossyIp}));
    m_mss->setEnabled(anyOf({DciTransport::LossyIp}));
    m_outstanding->setEnabled(anyOf({DciTransport::RdmaOtn, DciTransport::RocePfc}));
    m_headroom->setEnabled(anyOf({DciTransport::RocePfc}));

    const auto capacity =
        commonValue(links, [](auto* l) { return l->wavelengths * l->gbpsPerWavelength; });
    m_capacity->setText(capacity ? formatGbps(*capacity) : mixedText());
    const auto latency = commonValue(
        links, [](auto* l) { return l->distanceKm * kFibreSPerKm + l->equipmentLatencyS; });
    m_latency->setText(latency ? formatSeconds(*latency) : mixedText());
}

} // namespace archipelago::views
