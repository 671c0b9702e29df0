// DCI transports as per-link bounds (network/dcimodel.h; docs/network.md, "Transport across
// buildings"): RDMA over OTN (window / RTT), RoCE with PFC (headroom against the xoff need), TCP
// over a lossy network (window / RTT and Padhye et al. 1998), and what they do to an evaluation.
#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "model/dcilink.h"
#include "network/dcimodel.h"

#include "presetfixture.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace archipelago;
using core::DciLink;
using core::DciTransport;

namespace {

bool fuzzy(double a, double b, double rel = 1e-9)
{
    return std::fabs(a - b) <= rel * std::max({1.0, std::fabs(a), std::fabs(b)});
}

DciLink link(DciTransport transport, double km, int wavelengths = 16)
{
    DciLink l;
    l.id = 0;
    l.a = 0;
    l.b = 1;
    l.distanceKm = km;
    l.wavelengths = wavelengths;
    l.gbpsPerWavelength = 400.0;
    l.transport = transport;
    return l;
}

double rttS(const DciLink& l)
{
    return 2.0 * core::dciOneWayLatencyS(l);
}

// `connections` NCCL connections of the link's collective buffer (one GPU flow, n channels).
double usable(const DciLink& l, double connections)
{
    core::DciConnections c;
    c.connections = connections;
    c.bytesInFlight = l.nccl.buffsizeBytes;
    c.streamsPerConnection = l.nccl.qpsPerConnection;
    return core::dciUsableCapacityGBps(l, rttS(l), c);
}

const std::vector<DciTransport> kTransports{DciTransport::RdmaOtn, DciTransport::RocePfc,
                                            DciTransport::LossyIp};

using tests::loadPreset;

} // namespace

class TestTransport : public QObject
{
    Q_OBJECT
private slots:
    void lossNeverHelps();
    void distanceNeverHelps();
    void rdmaHasADistanceLimit();
    void pfcDegradesBelowTheXoffNeed();
    void pfcXoffMatchesTheDriverRule();
    void pfcLossCostsAGoBackNWindow();
    void tcpAtTotalLossCarriesNothing();
    void tcpFollowsMathisAtLowLoss();
    void moreConnectionsHelpTcpUntilCapacity();
    void everyFlowIsAConnection();
    void transportsDifferOnALongLink();
    void transportsAgreeOnAShortLosslessLink();
};

void TestTransport::lossNeverHelps()
{
    const std::vector<double> losses{0.0, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.05, 0.2, 0.5, 1.0};
    for (const DciTransport t : kTransports)
        for (const double km : {1.0, 100.0, 1000.0}) {
            DciLink l = link(t, km);
            double previous = std::numeric_limits<double>::infinity();
            for (const double p : losses) {
                l.packetLossRate = p;
                const double bw = usable(l, 64);
                QVERIFY2(bw <= previous * (1 + 1e-12),
                         qPrintable(QString("%1 at %2 km, loss %3: %4 > %5")
                                        .arg(core::toString(t))
                                        .arg(km)
                                        .arg(p)
                                        .arg(bw)
                                        .arg(previous)));
                QVERIFY(bw >= 0.0 && bw <= core::dciCapacityGBps(l));
                previous = bw;
            }
        }
}

void TestTransport::distanceNeverHelps()
{
    for (const DciTransport t : kTransports)
        for (const double p : {0.0, 1e-5, 1e-2}) {
            double previous = std::numeric_limits<double>::infinity();
            for (double km = 0.0; km <= 5000.0; km = km < 1.0 ? 1.0 : km * 1.5) {
                DciLink l = link(t, km);
                l.packetLossRate = p;
                const double bw = usable(l, 64);
                QVERIFY2(bw <= previous * (1 + 1e-12),
                         qPrintable(QString("%1 loss %2 at %3 km: %4 > %5")
                                        .arg(core::toString(t))
                                        .arg(p)
                                        .arg(km)
                                        .arg(bw)
                                        .arg(previous)));
                previous = bw;
            }
        }
}

void TestTransport::rdmaHasADistanceLimit()
{
    // 16 QPs with NCCL's 4 MiB each over one 400G wavelength (50 GB/s).
    DciLink l = link(DciTransport::RdmaOtn, 10.0, 1);
    const double window = 16 * 4.0 * 1024 * 1024;
    // 10 km: RTT 0.14 ms, 64 MiB / RTT ~ 490 GB/s, far above the line rate: the line binds.
    QCOMPARE(usable(l, 16), core::dciCapacityGBps(l));
    // 1000 km: RTT ~9.8 ms, 64 MiB / RTT ~ 6.8 GB/s: the window binds, and falls as 1/RTT.
    l.distanceKm = 1000.0;
    const double at1000 = usable(l, 16);
    QVERIFY(fuzzy(at1000, window / rttS(l) / 1e9));
    QVERIFY(at1000 < 0.2 * core::dciCapacityGBps(l));
    l.distanceKm = 2000.0;
    QVERIFY(fuzzy(usable(l, 16) * rttS(l), at1000 * rttS(link(DciTransport::RdmaOtn, 1000.0))));
    // Lossless: a configured loss rate does not apply.
    l.packetLossRate = 1e-3;
    QVERIFY(fuzzy(usable(l, 16), window / rttS(l) / 1e9));
    // A larger NCCL buffer per connection (NCCL_BUFFSIZE 8 MiB) doubles it.
    l.nccl.buffsizeBytes = 8.0 * 1024 * 1024;
    QVERIFY(fuzzy(usable(l, 16), 2 * window / rttS(l) / 1e9));
}

void TestTransport::pfcDegradesBelowTheXoffNeed()
{
    // 8 MiB of headroom per 400G port: the mlx5 rule needs 0.96 MiB at 1 km, 8.4 MiB at 10 km.
    // Many connections, so that the QP window never binds here.
    DciLink l = link(DciTransport::RocePfc, 1.0);
    QCOMPARE(usable(l, 1e6), core::dciCapacityGBps(l));
    l.distanceKm = 9.0;
    QCOMPARE(usable(l, 1e6), core::dciCapacityGBps(l));
    l.distanceKm = 10.0;
    const double xoff10 = core::pfcXoffBytes(10'000.0, 400.0, core::kPfcPortMtuBytes);
    QVERIFY(xoff10 > l.headroomBytes);
    QVERIFY(fuzzy(usable(l, 1e6), core::dciCapacityGBps(l) * l.headroomBytes / xoff10));
    // 100 km: ~10x short, ~headroom / RTT per port.
    l.distanceKm = 100.0;
    const double at100 = usable(l, 1e6);
    QVERIFY(at100 < 0.15 * core::dciCapacityGBps(l));
    const double perPortGBps = at100 / l.wavelengths;
    QVERIFY(perPortGBps > 0.5 * l.headroomBytes / rttS(l) / 1e9);
    QVERIFY(perPortGBps < 1.0 * l.headroomBytes / rttS(l) / 1e9);
    // A deep-buffer chassis (Azure: several GB of headroom) restores the line rate.
    l.headroomBytes = 256.0 * 1024 * 1024;
    QCOMPARE(usable(l, 1e6), core::dciCapacityGBps(l));
    // The same link as lossless RDMA over OTN does not need the headroom.
    l.headroomBytes = 8.0 * 1024 * 1024;
    l.transport = DciTransport::RdmaOtn;
    QCOMPARE(usable(l, 1e6), core::dciCapacityGBps(l));
}

void TestTransport::pfcXoffMatchesTheDriverRule()
{
    // docs/network.md: at 400G and 9216-byte MTU, 1 km 0.96 MiB, 10 km 8.4 MiB, 100 km 83 MiB.
    const double mib = 1024.0 * 1024.0;
    QVERIFY(fuzzy(core::pfcXoffBytes(1'000.0, 400.0, 9216.0) / mib, 0.96, 0.01));
    QVERIFY(fuzzy(core::pfcXoffBytes(10'000.0, 400.0, 9216.0) / mib, 8.4, 0.01));
    QVERIFY(fuzzy(core::pfcXoffBytes(100'000.0, 400.0, 9216.0) / mib, 83.0, 0.01));
    // The driver floors the speed at 40G.
    QCOMPARE(core::pfcXoffBytes(100.0, 10.0, 1500.0), core::pfcXoffBytes(100.0, 40.0, 1500.0));
}

void TestTransport::pfcLossCostsAGoBackNWindow()
{
    QCOMPARE(core::goBackNEfficiency(0.0, 1000.0), 1.0);
    QCOMPARE(core::goBackNEfficiency(1.0, 1000.0), 0.0);
    QVERIFY(fuzzy(core::goBackNEfficiency(1e-3, 1.0), 1.0 - 1e-3));
    // 1e-4 loss with 1000 packets in flight: each loss resends ~1000, ~9% lost.
    QVERIFY(fuzzy(core::goBackNEfficiency(1e-4, 1000.0), (1 - 1e-4) / (1 + 999e-4)));
    // On a long link the window in flight is larger, so the same loss costs more.
    DciLink shortLink = link(DciTransport::RocePfc, 1.0);
    shortLink.headroomBytes = 1e11;
    DciLink longLink = shortLink;
    longLink.distanceKm = 100.0;
    const double shortClean = usable(shortLink, 1e4);
    const double longClean = usable(longLink, 1e4);
    shortLink.packetLossRate = longLink.packetLossRate = 1e-5;
    QVERIFY(usable(shortLink, 1e4) / shortClean > usable(longLink, 1e4) / longClean);
}

void TestTransport::tcpAtTotalLossCarriesNothing()
{
    DciLink l = link(DciTransport::LossyIp, 500.0);
    l.packetLossRate = 1.0;
    QCOMPARE(usable(l, 1e6), 0.0);
    // Padhye's timeouts: at 50% loss a connection sends a packet every few RTOs.
    l.packetLossRate = 0.5;
    QVERIFY(usable(l, 1) < 1e-5); // < 10 kB/s
    // The first network model's per-flow bound left 0.2 GB/s per flow at 100% loss; Mathis alone
    // never reaches 0.
    QVERIFY(core::mathisThroughputGBps(1460.0, rttS(l), 1.0) > 0.0);
}

void TestTransport::tcpFollowsMathisAtLowLoss()
{
    // Padhye's model is Mathis with C = sqrt(3/2) when timeouts are rare (long RTT, low loss).
    const double rtt = 10e-3;
    for (const double p : {1e-6, 1e-5, 1e-4}) {
        const double padhye = core::padhyeThroughputGBps(1460.0, rtt, p, rtt + core::kTcpMinRtoS);
        const double mathis = core::mathisThroughputGBps(1460.0, rtt, p);
        QVERIFY(padhye <= mathis);
        QVERIFY(padhye > 0.97 * mathis);
    }
    // Beyond ~1% timeouts dominate and Padhye falls well below Mathis.
    QVERIFY(core::padhyeThroughputGBps(1460.0, rtt, 0.05, rtt + core::kTcpMinRtoS) <
            0.5 * core::mathisThroughputGBps(1460.0, rtt, 0.05));
    // On a link: connections x min(window / RTT, Padhye).
    DciLink l = link(DciTransport::LossyIp, 1000.0);
    l.packetLossRate = 1e-4;
    l.windowBytes = 1e9; // the window does not bind
    const double per =
        core::padhyeThroughputGBps(l.mssBytes, rttS(l), 1e-4, rttS(l) + core::kTcpMinRtoS);
    QVERIFY(fuzzy(usable(l, 32), 32 * per));
    l.windowBytes = 64 * 1024; // 64 KiB per ~9.8 ms: the window binds
    QVERIFY(fuzzy(usable(l, 32), 32 * l.windowBytes / rttS(l) / 1e9));
    // Jumbo segments carry 6x more per loss event.
    l.windowBytes = 1e9;
    l.mssBytes = 8948;
    QVERIFY(fuzzy(usable(l, 32), 32 * per * 8948 / 1460, 1e-6));
}

void TestTransport::moreConnectionsHelpTcpUntilCapacity()
{
    DciLink l = link(DciTransport::LossyIp, 700.0);
    l.packetLossRate = 1e-4;
    const double capacity = core::dciCapacityGBps(l);
    double previous = 0.0;
    bool saturated = false;
    for (double n = 1; n <= 1e6; n *= 4) {
        const double bw = usable(l, n);
        QVERIFY(bw >= previous);
        QVERIFY(bw <= capacity);
        if (bw < capacity)
            QVERIFY(fuzzy(bw, n * usable(l, 1))); // linear below the capacity
        saturated = saturated || bw == capacity;
        previous = bw;
    }
    QVERIFY(saturated);
    QVERIFY(usable(l, 1) < 0.001 * capacity);
}

void TestTransport::everyFlowIsAConnection()
{
    // One connection per channel per GPU flow, at least one flow (NCCL: a channel's ring edge
    // or send/recv peer is one connection).
    DciLink l = link(DciTransport::LossyIp, 100.0);
    l.nccl.channels = 4;
    l.nccl.p2pChannelsPerPeer = 2;
    using core::NcclTraffic;
    QCOMPARE(core::dciConnections(l, 1.0, NcclTraffic::Collective).connections, 4.0);
    QCOMPARE(core::dciConnections(l, 512.0, NcclTraffic::Collective).connections, 2048.0);
    QCOMPARE(core::dciConnections(l, 0.0, NcclTraffic::Collective).connections, 4.0);
    QCOMPARE(core::dciConnections(l, 512.0, NcclTraffic::PointToPoint).connections, 1024.0);
}

void TestTransport::transportsDifferOnALongLink()
{
    // Two buildings, PP stage 7 -> 8 across the link (1,024 GPU flows at once), moved 1,000 km
    // apart: RDMA is window-bound (1,024 x 2 send/recv channels x 8 x 128 KiB / 9.8 ms ~ 220
    // GB/s of 3,200), RoCE with 8 MiB
    // of headroom pauses (8 MiB of the 860 MB xoff need), TCP at 1e-4 loss is loss-bound.
    core::Scenario s = loadPreset("llama3-405b-two-buildings.json");
    core::DciLink& dci = s.topology.links.front();
    dci.distanceKm = 1000.0;
    dci.optic.clear(); // no reach warnings: the point is the transport
    dci.lineSystem.clear();
    std::vector<double> times;
    for (const DciTransport t : kTransports) {
        dci.transport = t;
        dci.packetLossRate = t == DciTransport::RdmaOtn ? 0.0 : 1e-4;
        const core::Evaluation ev = core::evaluate(s);
        QVERIFY2(ev.ok, core::toString(t));
        QVERIFY(std::isfinite(ev.iterationTimeS));
        times.push_back(ev.iterationTimeS);
        const bool bound = std::any_of(ev.warnings.begin(), ev.warnings.end(), [](auto& w) {
            return w.code == core::WarningCode::DciTransportBound;
        });
        QVERIFY2(bound, core::toString(t));
    }
    // Lossless RDMA over OTN is the fastest. Which of the other two is slower depends on the
    // connections: RoCE is pause-bound (~1 % of the line rate per port, whatever the
    // connections), TCP gets Padhye's rate per stream, 2,048 streams here (2 send/recv channels
    // per GPU flow).
    QVERIFY2(times[0] < times[1] * 0.99, qPrintable(QString("%1 %2").arg(times[0]).arg(times[1])));
    QVERIFY2(times[0] < times[2] * 0.99, qPrintable(QString("%1 %2").arg(times[0]).arg(times[2])));
}

void TestTransport::transportsAgreeOnAShortLosslessLink()
{
    // 1 km, no loss: 8 MiB of PFC headroom covers the 0.96 MiB xoff need, the windows cover the
    // bandwidth-delay product, and all three carry the wavelengths' capacity.
    core::Scenario s = loadPreset("llama3-405b-two-buildings.json");
    core::DciLink& dci = s.topology.links.front();
    dci.distanceKm = 1.0;
    dci.packetLossRate = 0.0;
    std::vector<double> times;
    for (const DciTransport t : kTransports) {
        dci.transport = t;
        const core::Evaluation ev = core::evaluate(s);
        QVERIFY2(ev.ok, core::toString(t));
        times.push_back(ev.iterationTimeS);
        QVERIFY(std::none_of(ev.warnings.begin(), ev.warnings.end(), [](auto& w) {
            return w.code == core::WarningCode::DciTransportBound;
        }));
    }
    QCOMPARE(times[1], times[0]);
    QCOMPARE(times[2], times[0]);
}

QTEST_GUILESS_MAIN(TestTransport)
#include "test_transport.moc"
