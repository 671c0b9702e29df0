// NCCL's connections on a long DCI link (network/dcimodel.h; docs/network.md, "NCCL's
// connections"): a GPU flow crossing a link opens one connection per channel, each with its
// buffer in flight at most, and its queue pairs share that buffer. Reproduces the long-haul
// finding that extra wavelengths were worthless at 1,000 km (one 4 MiB window per GPU flow),
// checks that NCCL settings raised as long-haul deployments raise them let the wavelengths
// count again, and that more channels, QPs or buffer are never slower.
#include "evaluation/costmodel.h"
#include "explore/searchspace.h"
#include "explore/spacejson.h"
#include "explore/spaceodometer.h"
#include "io/diagnosticsink.h"
#include "io/scenarioio.h"
#include "model/dcilink.h"
#include "model/modelshapes.h"
#include "network/dcimodel.h"

#include "presetfixture.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace archipelago;
using core::DciLink;
using core::DciTransport;
using core::NcclSettings;
using core::NcclTraffic;

namespace {

constexpr double kMib = 1024.0 * 1024.0;

using tests::loadPreset;

const core::ModelShape& shape(const char* name)
{
    for (const core::ModelShape& m : core::publishedModelShapes())
        if (std::strcmp(m.name, name) == 0)
            return m;
    qFatal("no model shape %s", name);
}

enum class Across
{
    Dp, // each building holds whole pipelines: the gradient all-reduce crosses
    Pp  // stages 0-5 in one building, 6-11 in the other: the activations cross
};

// Nemotron-4 340B (its report's TP 8 x PP 12) on 12,288 H100 of the two-buildings preset's
// campus (DP 128, 16 micro-batches per replica, interleaved with 2 chunks per rank), the
// buildings `km` apart on `wavelengths` x 400G of lossless RDMA over OTN.
core::Scenario job(Across across, double km, int wavelengths)
{
    core::Scenario s = loadPreset("llama3-405b-two-buildings.json");
    s.workload = core::withModelShape(s.workload, shape("Nemotron-4 340B"));
    s.parallelism.pp = 12;
    s.parallelism.virtualStages = 2;
    s.placement.layersPerStage.clear();
    if (across == Across::Dp)
        s.placement.shards = {core::PlacementShard{64, std::vector<core::Id>(12, 0)},
                              core::PlacementShard{64, std::vector<core::Id>(12, 1)}};
    else {
        std::vector<core::Id> stages(12, 0);
        std::fill(stages.begin() + 6, stages.end(), 1);
        s.placement.shards = {core::PlacementShard{128, stages}};
    }
    DciLink& dci = s.topology.links.front();
    dci.distanceKm = km;
    dci.wavelengths = wavelengths;
    dci.optic.clear(); // no reach or line-system warnings: the point is the transport
    dci.lineSystem.clear();
    return s;
}

double iterationS(const core::Scenario& s)
{
    const core::Evaluation ev = core::evaluate(s);
    if (!ev.ok)
        qFatal("evaluation failed");
    return ev.iterationTimeS;
}

// Efficiency of the job across buildings: its iteration time on a 1 km link of 256 wavelengths
// (nothing on the link binds) over its time as given.
double efficiency(const core::Scenario& s)
{
    core::Scenario near = s;
    near.topology.links.front().distanceKm = 1.0;
    near.topology.links.front().wavelengths = 256;
    return iterationS(near) / iterationS(s);
}

// Long-haul settings of the kind long-haul deployments raise: 16 channels per flow, 16 MiB
// buffers (and 16 x 256 KiB send/recv chunks to fill them), 4 QPs per connection.
NcclSettings longHaul()
{
    NcclSettings n;
    n.channels = 16;
    n.p2pChannelsPerPeer = 16;
    n.buffsizeBytes = 16.0 * kMib;
    n.p2pChunkBytes = 2.0 * kMib;
    n.qpsPerConnection = 4;
    return n;
}

} // namespace

class TestNcclWindow : public QObject
{
    Q_OBJECT
private slots:
    void defaultsAreNcclsOwn();
    void queuePairsShareTheBuffer();
    void moreChannelsQpsOrBufferNeverSlower();
    void oneWindowPerFlowLeftWavelengthsWorthless();
    void defaultsAreWindowBoundAt1000Km();
    void longHaulSettingsMakeWavelengthsCount();
    void moreNcclNeverSlowerOnTheJob();
    void explorerSearchesChannels();
};

void TestNcclWindow::defaultsAreNcclsOwn()
{
    // NVIDIA/nccl 5067397: DEFAULT_BUFFSIZE (1 << 22) in src/init.cc, NCCL_P2P_NET_CHUNKSIZE
    // (1 << 17), NCCL_IB_QPS_PER_CONNECTION 1 (src/transport/net_ib/connect.cc), NCCL_STEPS 8
    // (src/include/device.h); two collective channels and two send/recv channels per peer for
    // one GPU and one 400G NIC per node (src/graph/search.cc, src/graph/paths.cc).
    const NcclSettings n;
    QCOMPARE(n.buffsizeBytes, double(1 << 22));
    QCOMPARE(n.p2pChunkBytes, double(1 << 17));
    QCOMPARE(n.qpsPerConnection, 1);
    QCOMPARE(n.channels, 2);
    QCOMPARE(n.p2pChannelsPerPeer, 2);
    QCOMPARE(core::kNcclSteps, 8);
    // A collective connection keeps its buffer in flight, a send/recv one 8 chunks.
    QCOMPARE(core::ncclBytesInFlight(n, NcclTraffic::Collective), 4.0 * kMib);
    QCOMPARE(core::ncclBytesInFlight(n, NcclTraffic::PointToPoint), 1.0 * kMib);
    // The chunk is capped at NCCL_BUFFSIZE / NCCL_STEPS (src/init.cc computeBuffSizes).
    NcclSettings big = n;
    big.p2pChunkBytes = 4.0 * kMib;
    QCOMPARE(core::ncclBytesInFlight(big, NcclTraffic::PointToPoint), 4.0 * kMib);
    // A DCI link carries NCCL's defaults unless the scenario says otherwise.
    QCOMPARE(DciLink{}.nccl, n);
}

void TestNcclWindow::queuePairsShareTheBuffer()
{
    // One wavelength (one port: hashing cannot matter), 1,000 km: the window binds, and QPs,
    // which share their connection's buffer, do not change it; channels and buffer do.
    DciLink l;
    l.distanceKm = 1000.0;
    l.wavelengths = 1;
    const double rtt = 2.0 * core::dciOneWayLatencyS(l);
    const auto usable = [&](const DciLink& link) {
        return core::dciUsableCapacityGBps(link, rtt,
                                           core::dciConnections(link, 1, NcclTraffic::Collective));
    };
    const double base = usable(l);
    QVERIFY(std::fabs(base - 2 * 4.0 * kMib / rtt / 1e9) < 1e-9 * base); // 2 channels x 4 MiB
    DciLink qps = l;
    qps.nccl.qpsPerConnection = 8;
    QCOMPARE(usable(qps), base);
    DciLink channels = l;
    channels.nccl.channels = 8;
    QVERIFY(std::fabs(usable(channels) - 4 * base) < 1e-9 * base);
    DciLink buffer = l;
    buffer.nccl.buffsizeBytes = 16.0 * kMib;
    QVERIFY(std::fabs(usable(buffer) - 4 * base) < 1e-9 * base);
    // Where they help: few connections over many wavelengths. Each QP is a 5-tuple the DCI
    // routers hash onto a port; 2 connections reach at most 2 of 256 ports, 2 x 64 QPs most.
    DciLink shortWide = l;
    shortWide.distanceKm = 1.0;
    shortWide.wavelengths = 256;
    const double rttShort = 2.0 * core::dciOneWayLatencyS(shortWide);
    shortWide.nccl.buffsizeBytes = 1e9; // the window does not bind
    const auto c1 = core::dciConnections(shortWide, 1, NcclTraffic::Collective);
    const double oneQp = core::dciUsableCapacityGBps(shortWide, rttShort, c1);
    QVERIFY(oneQp <= 2.0 * core::dciCapacityGBps(shortWide) / 256 * (1 + 1e-12));
    shortWide.nccl.qpsPerConnection = 64;
    const auto c64 = core::dciConnections(shortWide, 1, NcclTraffic::Collective);
    QVERIFY(core::dciUsableCapacityGBps(shortWide, rttShort, c64) > 20 * oneQp);
}

void TestNcclWindow::moreChannelsQpsOrBufferNeverSlower()
{
    const std::vector<DciTransport> transports{DciTransport::RdmaOtn, DciTransport::RocePfc,
                                               DciTransport::LossyIp};
    for (const DciTransport t : transports)
        for (const double km : {1.0, 100.0, 1000.0})
            for (const double loss : {0.0, 1e-5})
                for (const double flows : {1.0, 96.0, 6144.0})
                    for (const NcclTraffic traffic :
                         {NcclTraffic::Collective, NcclTraffic::PointToPoint}) {
                        DciLink l;
                        l.transport = t;
                        l.distanceKm = km;
                        l.packetLossRate = loss;
                        l.wavelengths = 64;
                        const double rtt = 2.0 * core::dciOneWayLatencyS(l);
                        const auto usable = [&] {
                            return core::dciUsableCapacityGBps(
                                l, rtt, core::dciConnections(l, flows, traffic));
                        };
                        // Raise one setting at a time, each step never slower.
                        double previous = usable();
                        const auto step = [&](const char* what) {
                            const double now = usable();
                            QVERIFY2(now >= previous * (1 - 1e-12),
                                     qPrintable(QString("%1 at %2 km, loss %3, %4 flows: %5 "
                                                        "%6 -> %7 GB/s")
                                                    .arg(core::toString(t))
                                                    .arg(km)
                                                    .arg(loss)
                                                    .arg(flows)
                                                    .arg(what)
                                                    .arg(previous)
                                                    .arg(now)));
                            previous = now;
                        };
                        for (int c = 2; c <= 64; c *= 2) {
                            l.nccl.channels = l.nccl.p2pChannelsPerPeer = c;
                            step("channels");
                        }
                        for (int q = 2; q <= 128; q *= 2) {
                            l.nccl.qpsPerConnection = q;
                            step("qps");
                        }
                        for (double b = 8 * kMib; b <= 1024 * kMib; b *= 2) {
                            l.nccl.buffsizeBytes = b;
                            step("buffsize");
                        }
                        for (double c = 256 * 1024.0; c <= 128 * kMib; c *= 2) {
                            l.nccl.p2pChunkBytes = c;
                            step("p2p chunk");
                        }
                    }
}

void TestNcclWindow::oneWindowPerFlowLeftWavelengthsWorthless()
{
    // Reproduction of the previous model, one 4 MiB window per GPU flow (connections =
    // max(flows, 16) with 4 MiB each): as NCCL settings, one channel per flow and 4 MiB per
    // send/recv connection (8 x 512 KiB). At 1,000 km the job with PP across has the same
    // efficiency at 6.4 Tb/s as at 102.4 Tb/s, and with DP across the same at 25.6 Tb/s as at
    // 102.4 Tb/s (at 6.4 Tb/s the wavelengths themselves bind the gradient all-reduce).
    NcclSettings old;
    old.channels = 1;
    old.p2pChannelsPerPeer = 1;
    old.p2pChunkBytes = 512.0 * 1024;
    const auto at = [&](Across across, int wavelengths) {
        core::Scenario s = job(across, 1000.0, wavelengths);
        s.topology.links.front().nccl = old;
        return efficiency(s);
    };
    const double pp16 = at(Across::Pp, 16), pp256 = at(Across::Pp, 256);
    const double dp16 = at(Across::Dp, 16), dp64 = at(Across::Dp, 64), dp256 = at(Across::Dp, 256);
    qInfo("one window per flow, 1,000 km: PP across %.4f at 6.4 Tb/s, %.4f at 102.4 Tb/s; DP "
          "across %.4f at 6.4, %.4f at 25.6, %.4f at 102.4 Tb/s",
          pp16, pp256, dp16, dp64, dp256);
    QCOMPARE(pp16, pp256);
    QCOMPARE(dp64, dp256);
    QVERIFY(pp256 < 0.96 && dp256 < 0.95); // the windows cost the job something
    QVERIFY(dp16 < dp64 - 0.1);            // where the wavelengths bind, they do count
}

void TestNcclWindow::defaultsAreWindowBoundAt1000Km()
{
    // With NCCL's own defaults the send/recv window per flow is smaller (2 channels x 8 x
    // 128 KiB = 2 MiB) and the collective one larger (2 x 4 MiB): PP across is still flat in
    // the wavelengths, DP across gains from them but is still bound by the windows at
    // 102.4 Tb/s (the long-haul settings below do better on the same link).
    const double pp16 = efficiency(job(Across::Pp, 1000.0, 16));
    const double pp256 = efficiency(job(Across::Pp, 1000.0, 256));
    const double dp16 = efficiency(job(Across::Dp, 1000.0, 16));
    const double dp256 = efficiency(job(Across::Dp, 1000.0, 256));
    qInfo("NCCL defaults, 1,000 km: PP across %.4f at 6.4 Tb/s, %.4f at 102.4 Tb/s; DP across "
          "%.4f at 6.4, %.4f at 102.4 Tb/s",
          pp16, pp256, dp16, dp256);
    QCOMPARE(pp16, pp256);
    QVERIFY(dp256 > dp16 + 0.1);
    core::Scenario tuned = job(Across::Dp, 1000.0, 256);
    tuned.topology.links.front().nccl = longHaul();
    QVERIFY(efficiency(tuned) > dp256 + 0.01);
}

void TestNcclWindow::longHaulSettingsMakeWavelengthsCount()
{
    for (const Across across : {Across::Dp, Across::Pp}) {
        core::Scenario narrow = job(across, 1000.0, 16);
        core::Scenario wide = job(across, 1000.0, 256);
        narrow.topology.links.front().nccl = longHaul();
        wide.topology.links.front().nccl = longHaul();
        const double eNarrow = efficiency(narrow);
        const double eWide = efficiency(wide);
        qInfo("%s across, long-haul NCCL, 1,000 km: efficiency %.4f at 6.4 Tb/s, %.4f at "
              "102.4 Tb/s (iteration %.3f s, %.3f s)",
              across == Across::Dp ? "DP" : "PP", eNarrow, eWide, iterationS(narrow),
              iterationS(wide));
        // More wavelengths help (DP across: 0.79 -> 1.00; PP across, whose activations need
        // less of the link: 0.990 -> 0.998)...
        QVERIFY2(eWide > eNarrow + 0.005, qPrintable(QString("%1 vs %2").arg(eNarrow).arg(eWide)));
        // ...and at 6.4 Tb/s the link, not the window, binds: more NCCL no longer helps.
        core::Scenario more = narrow;
        more.topology.links.front().nccl.channels *= 4;
        more.topology.links.front().nccl.p2pChannelsPerPeer *= 4;
        more.topology.links.front().nccl.buffsizeBytes *= 4;
        more.topology.links.front().nccl.p2pChunkBytes *= 4;
        QVERIFY(std::fabs(iterationS(more) - iterationS(narrow)) < 1e-6 * iterationS(narrow));
    }
}

void TestNcclWindow::moreNcclNeverSlowerOnTheJob()
{
    for (const Across across : {Across::Dp, Across::Pp}) {
        core::Scenario s = job(across, 1000.0, 64);
        double previous = iterationS(s);
        NcclSettings& n = s.topology.links.front().nccl;
        const auto step = [&](const char* what) {
            const double now = iterationS(s);
            QVERIFY2(now <= previous * (1 + 1e-9),
                     qPrintable(QString("%1: %2 -> %3 s").arg(what).arg(previous).arg(now)));
            previous = now;
        };
        for (int k = 0; k < 3; ++k) {
            n.channels *= 2;
            step("channels");
            n.p2pChannelsPerPeer *= 2;
            step("p2p channels");
            n.qpsPerConnection *= 2;
            step("qps");
            n.buffsizeBytes *= 2;
            step("buffsize");
            n.p2pChunkBytes *= 2;
            step("p2p chunk");
        }
    }
}

void TestNcclWindow::explorerSearchesChannels()
{
    const core::Scenario base = job(Across::Dp, 1000.0, 16);
    core::DiagnosticSink sink("space.json");
    const auto space = core::parseSearchSpace(R"({"nccl_channels": ["base", 16]})", base, sink);
    QVERIFY(space);
    QCOMPARE(space->ncclChannels, (std::vector<int>{0, 16}));
    const core::SearchSpace plain = core::defaultSearchSpace(base);
    QCOMPARE(plain.ncclChannels, std::vector<int>{0}); // not searched unless asked
    QCOMPARE(core::spaceTopologies(*space), 2 * core::spaceTopologies(plain));
    // A topology variant: every link's collective and send/recv channels, nothing else.
    const core::SpaceOdometer odometer(*space);
    bool sawSixteen = false;
    for (std::uint64_t t = 0; t < odometer.topologies(); ++t) {
        const core::DesignPoint p = odometer.at(odometer.firstOfTopology(t));
        core::Topology topology = base.topology;
        core::applyTopologyVariant(topology, base.topology, p.dciTransport, p.wavelengths, p.fabric,
                                   p.ncclChannels);
        const NcclSettings& n = topology.links.front().nccl;
        if (p.ncclChannels == 16) {
            sawSixteen = true;
            QCOMPARE(n.channels, 16);
            QCOMPARE(n.p2pChannelsPerPeer, 16);
            QCOMPARE(n.buffsizeBytes, base.topology.links.front().nccl.buffsizeBytes);
        } else {
            QCOMPARE(n, base.topology.links.front().nccl);
        }
    }
    QVERIFY(sawSixteen);
    // Out of NCCL's range: refused with the pointer to the value.
    core::DiagnosticSink bad("space.json");
    QVERIFY(!core::parseSearchSpace(R"({"nccl_channels": [65]})", base, bad));
    QVERIFY(std::any_of(bad.errors().begin(), bad.errors().end(),
                        [](const auto& d) { return d.pointer == "/nccl_channels/0"; }));
}

QTEST_GUILESS_MAIN(TestNcclWindow)
#include "test_ncclwindow.moc"
