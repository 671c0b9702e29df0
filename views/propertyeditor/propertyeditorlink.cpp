#include "propertyeditor/propertyeditorlink.h"

#include "common/format.h"
#include "io/scenarioio.h"
#include "model/dcilink.h"

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

// The one-way delay of a km of fibre, from the model's own constant (model/dcilink.h), so the
// field's help and the evaluation never disagree.
double fibreMicrosecondsPerKm()
{
    return core::fibreLatencyS(1.0) * 1e6;
}

} // namespace

LinkEditor::LinkEditor(EditSink* sink, QWidget* parent)
    : PropertyEditorPage(sink, tr("DCI link"), parent)
{
    QFormLayout* path = addSection(tr("Path"));
    m_endpoints = addNote(path, tr("Joins"), tr("The two datacenters of the link."));
    addDouble(path, m_distance, tr("Distance (km)"),
              tr("Fibre path length in km, 0.1–20,000 (buildings on one campus are a few "
                 "hundred metres of fibre apart at least); adds %1 µs/km of latency each way "
                 "(light in G.652 fibre, group index %2).")
                  .arg(fibreMicrosecondsPerKm(), 0, 'f', 2)
                  .arg(core::kFibreGroupIndex, 0, 'f', 3),
              QStringLiteral("distance_km"), 0.1, 20'000.0, 1, 1.0,
              [](core::DciLink& l) -> double& { return l.distanceKm; });
    DoubleField* equipment = nullptr;
    addDouble(path, equipment, tr("Equipment latency (µs)"),
              tr("Transponders, ROADMs and switches at both ends, in µs, one way."),
              QStringLiteral("equipment_latency_s"), 0.0, 1e6, 1, 1e6,
              [](core::DciLink& l) -> double& { return l.equipmentLatencyS; });
    m_equipmentLatency = equipment;
    m_latency = addNote(
        path, tr("One-way latency"),
        tr("Derived: %1 µs/km × distance + equipment.").arg(fibreMicrosecondsPerKm(), 0, 'f', 2));
    m_protection = new CheckField(tr("1+1 optical protection"));
    m_protection->setToolTip(
        tr("A second, diverse fibre route of the same length: a cut switches over in under "
           "50 ms, inside NCCL's retries, so it does not stop the job. Without it, a cut of the "
           "only route stops a synchronous job until the fibre is spliced. The bill counts the "
           "second route's amplifiers."));
    m_protectionRow = new FieldRow(m_protection);
    path->addRow(m_protectionRow);
    connect(m_protection, &CheckField::committed, this, [this](bool on) {
        editLinks(m_protectionRow, [&](core::DciLink& l) { l.opticalProtection = on; });
    });

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
              [](core::DciLink& l) -> double& { return l.gbpsPerWavelength; });
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
              [](core::DciLink& l) -> double& { return l.packetLossRate; });
    addDouble(transport, m_window, tr("Window per connection (MiB)"),
              tr("Congestion / receive window of one connection in MiB (lossy IP only)."),
              QStringLiteral("window_bytes"), 0.001, 1e6, 3, 1.0 / (1024.0 * 1024.0),
              [](core::DciLink& l) -> double& { return l.windowBytes; });
    addDouble(transport, m_mss, tr("TCP segment (bytes)"),
              tr("TCP maximum segment size in bytes, 536–65,495 (1460 on a 1500-byte MTU, 8948 "
                 "on 9000; lossy IP only)."),
              QStringLiteral("mss_bytes"), 536.0, 65'495.0, 0, 1.0,
              [](core::DciLink& l) -> double& { return l.mssBytes; });
    addDouble(transport, m_headroom, tr("PFC headroom per port (MiB)"),
              tr("Switch buffer reserved per port and lossless priority in MiB; below the xoff "
                 "need of the cable length the port pauses early (RoCE with PFC only)."),
              QStringLiteral("headroom_bytes"), 0.001, 1e6, 3, 1.0 / (1024.0 * 1024.0),
              [](core::DciLink& l) -> double& { return l.headroomBytes; });

    // NCCL's connections: every GPU flow crossing the link opens one per channel, each with
    // its buffer in flight at most (docs/network.md, "NCCL's connections").
    QFormLayout* nccl = addSection(tr("NCCL"));
    constexpr double kMib = 1.0 / (1024.0 * 1024.0);
    addDouble(nccl, m_buffsize, tr("Buffer per connection (MiB)"),
              tr("NCCL_BUFFSIZE in MiB (NCCL's default 4): what one collective connection keeps "
                 "in flight at most."),
              QStringLiteral("nccl/buffsize_bytes"), 0.004, 2048.0, 3, kMib,
              [](core::DciLink& l) -> double& { return l.nccl.buffsizeBytes; });
    addInt(nccl, m_channels, tr("Channels per flow"),
           tr("Channels of a collective per GPU flow crossing the link, 1–64 (NCCL finds 2 for "
              "one GPU and one 400G NIC per node; NCCL_MIN_NCHANNELS raises it). One "
              "connection and one buffer each."),
           QStringLiteral("nccl/channels"), 1, 64,
           [](core::DciLink& l) -> int& { return l.nccl.channels; });
    addInt(nccl, m_p2pChannels, tr("Send/recv channels per peer"),
           tr("NCCL_NCHANNELS_PER_NET_PEER, 1–64 (2 by default here): channels of a pipeline or "
              "expert send/recv per GPU pair crossing the link."),
           QStringLiteral("nccl/p2p_channels_per_peer"), 1, 64,
           [](core::DciLink& l) -> int& { return l.nccl.p2pChannelsPerPeer; });
    addDouble(nccl, m_p2pChunk, tr("Send/recv chunk (KiB)"),
              tr("NCCL_P2P_NET_CHUNKSIZE in KiB (NCCL's default 128): a send/recv connection "
                 "keeps 8 chunks in flight at most."),
              QStringLiteral("nccl/p2p_chunk_bytes"), 4.0, 2.0 * 1024 * 1024, 0, 1.0 / 1024.0,
              [](core::DciLink& l) -> double& { return l.nccl.p2pChunkBytes; });
    addInt(nccl, m_qps, tr("QPs per connection"),
           tr("NCCL_IB_QPS_PER_CONNECTION, 1–128 (NCCL's default 1): queue pairs (sockets for "
              "TCP) a connection stripes over. They share its buffer and add hashing entropy "
              "over the wavelengths' ports."),
           QStringLiteral("nccl/qps_per_connection"), 1, 128,
           [](core::DciLink& l) -> int& { return l.nccl.qpsPerConnection; });
}

FieldRow* LinkEditor::addDouble(QFormLayout* form, DoubleField*& field, const QString& label,
                                const QString& toolTip, const QString& key, double minimum,
                                double maximum, int decimals, double scale, DoubleRef member)
{
    field = new DoubleField(minimum, maximum, decimals);
    FieldRow* row = addField(form, label, field, toolTip);
    m_doubles.push_back({field, row, key, scale, member});
    connect(field, &DoubleField::committed, this, [this, row, scale, member](double shown) {
        editLinks(row, [&](core::DciLink& l) { member(l) = shown / scale; });
    });
    return row;
}

FieldRow* LinkEditor::addInt(QFormLayout* form, IntField*& field, const QString& label,
                             const QString& toolTip, const QString& key, int minimum, int maximum,
                             IntRef member)
{
    field = new IntField(minimum, maximum);
    FieldRow* row = addField(form, label, field, toolTip);
    m_ints.push_back({field, row, key, member});
    connect(field, &IntField::committed, this, [this, row, member](int v) {
        editLinks(row, [&](core::DciLink& l) { member(l) = v; });
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
    proposal.candidate = scenario();
    for (core::DciLink& link : proposal.candidate.topology.links)
        if (ids().contains(link.id))
            apply(link);
    proposal.fields = row->pointers();
    proposal.row = row;
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
        // The accessor serves the edit; reading goes through a copy of the link.
        b.field->load(commonValue(links, [&](auto* l) {
            core::DciLink copy = *l;
            return b.member(copy) * b.scale;
        }));
        b.row->setPointers(linkPointers(s, ids(), QLatin1Char('/') + b.key));
    }
    for (const IntBinding& b : m_ints) {
        b.field->load(commonValue(links, [&](auto* l) {
            core::DciLink copy = *l;
            return b.member(copy);
        }));
        b.row->setPointers(linkPointers(s, ids(), QLatin1Char('/') + b.key));
    }
    m_wavelengths->load(commonValue(links, [](auto* l) { return l->wavelengths; }));
    m_protection->load(commonValue(links, [](auto* l) { return l->opticalProtection; }));
    m_protectionRow->setPointers(linkPointers(s, ids(), QStringLiteral("/optical_protection")));
    m_optic->load(commonValue(links, [](auto* l) { return qs(l->optic); }));
    m_lineSystem->load(commonValue(links, [](auto* l) { return qs(l->lineSystem); }));
    const auto transport = commonValue(links, [](auto* l) { return l->transport; });
    m_transport->load(transport ? std::optional<QString>(QString::fromLatin1(toString(*transport)))
                                : std::nullopt);
    m_wavelengthsRow->setPointers(linkPointers(s, ids(), QStringLiteral("/wavelengths")));
    m_opticRow->setPointers(linkPointers(s, ids(), QStringLiteral("/optic")));
    m_lineSystemRow->setPointers(linkPointers(s, ids(), QStringLiteral("/line_system")));
    m_transportRow->setPointers(linkPointers(s, ids(), QStringLiteral("/transport")));

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
    m_headroom->setEnabled(anyOf({DciTransport::RocePfc}));

    const auto capacity =
        commonValue(links, [](auto* l) { return l->wavelengths * l->gbpsPerWavelength; });
    m_capacity->setText(capacity ? formatGbps(*capacity) : mixedText());
    const auto latency = commonValue(links, [](auto* l) { return core::dciOneWayLatencyS(*l); });
    m_latency->setText(latency ? formatSeconds(*latency) : mixedText());
}

} // namespace archipelago::views
