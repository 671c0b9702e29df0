// Network area tests, part 1: fabric counts against the textbook, DCI physics,
// routes, the bill of materials and traffic per level. Placement is in test_network_placement.cpp.
#include "test_network.h"

#include "model/topologygraph.h"
#include "network/bom.h"
#include "network/dcimodel.h"
#include "network/fabric.h"
#include "network/linktraffic.h"

#include <QtTest>

#include <limits>

using namespace archipelago::core;
using namespace nettest;

void TestNetwork::closCounts_data()
{
    QTest::addColumn<qint64>("hosts");
    QTest::addColumn<int>("radix");
    QTest::addColumn<int>("tiers");
    QTest::addColumn<double>("leafOversubscription");
    QTest::addColumn<qint64>("leaves");
    QTest::addColumn<qint64>("spines");
    QTest::addColumn<qint64>("cores");
    QTest::addColumn<qint64>("capacity");
    // Al-Fares et al. 2008: k^3/4 hosts on 5k^2/4 switches (k = 64: 65,536 on 5,120).
    QTest::newRow("fat-tree k=64") << qint64(65536) << 64 << 3 << 1.0 << qint64(2048)
                                   << qint64(2048) << qint64(1024) << qint64(65536);
    QTest::newRow("fat-tree k=32") << qint64(8192) << 32 << 3 << 1.0 << qint64(512) << qint64(512)
                                   << qint64(256) << qint64(8192);
    // Leaf-spine: k^2/2 hosts on 3k/2 switches.
    QTest::newRow("leaf-spine k=64 full")
        << qint64(2048) << 64 << 2 << 1.0 << qint64(64) << qint64(32) << qint64(0) << qint64(2048);
    QTest::newRow("leaf-spine k=64 partial")
        << qint64(1000) << 64 << 2 << 1.0 << qint64(32) << qint64(16) << qint64(0) << qint64(2048);
    // 3:1 at the leaf: the leaf keeps its 32 hosts and cables 11 uplinks (32 / 3, rounded):
    // 64 leaves x 11 = 704 uplinks on 11 spines.
    QTest::newRow("leaf-spine 3:1")
        << qint64(2048) << 64 << 2 << 3.0 << qint64(64) << qint64(11) << qint64(0) << qint64(2048);
    QTest::newRow("one switch") << qint64(40) << 64 << 3 << 1.0 << qint64(1) << qint64(0)
                                << qint64(0) << qint64(64);
    // A 3-tier design that fits one pod needs no core.
    QTest::newRow("3-tier, one pod")
        << qint64(512) << 64 << 3 << 1.0 << qint64(16) << qint64(8) << qint64(0) << qint64(2048);
}

void TestNetwork::closCounts()
{
    QFETCH(qint64, hosts);
    QFETCH(int, radix);
    QFETCH(int, tiers);
    QFETCH(double, leafOversubscription);
    const ClosCounts c =
        archipelago::core::closCounts(hosts, radix, tiers, leafOversubscription, 1.0);
    QTEST(qint64(c.leaves), "leaves");
    QTEST(qint64(c.spines), "spines");
    QTEST(qint64(c.cores), "cores");
    QTEST(qint64(c.capacityHosts), "capacity");
    QVERIFY(!c.overCapacity);
    QCOMPARE(qint64(c.hostLinks), hosts);
    if (tiers == 3 && hosts == qint64(radix) * radix * radix / 4)
        QCOMPARE(qint64(c.switches()), qint64(5) * radix * radix / 4);
}

void TestNetwork::railOnlyCounts_data()
{
    QTest::addColumn<qint64>("domains");
    QTest::addColumn<int>("gpusPerDomain");
    QTest::addColumn<int>("tiersPerRail");
    QTest::addColumn<qint64>("switchesPerRail");
    // 8,192 H100 in 8-GPU domains: each of 8 rails joins 1,024 GPUs on a leaf-spine of radix 64
    // (32 leaves + 16 spines).
    QTest::newRow("8k, 8-GPU domains") << qint64(1024) << 8 << 2 << qint64(48);
    // 8,192 GPUs in 256-GPU domains: 256 rails of 32 GPUs, one switch each.
    QTest::newRow("8k, 256-GPU domains") << qint64(32) << 256 << 1 << qint64(1);
    // NVL72: 72 rails of 64 domains fill exactly one 64-port switch.
    QTest::newRow("NVL72 x 64") << qint64(64) << 72 << 1 << qint64(1);
}

void TestNetwork::railOnlyCounts()
{
    QFETCH(qint64, domains);
    QFETCH(int, gpusPerDomain);
    const Datacenter dc = makeDc(0, "dc", domains, gpusPerDomain, FabricKind::RailOnly, 2);
    const FabricDesign f = designFabric(dc, testCatalog());
    QCOMPARE(qint64(f.planes), qint64(gpusPerDomain));
    QTEST(f.tiers, "tiersPerRail");
    QTEST(qint64(f.plane.switches()), "switchesPerRail");
    QCOMPARE(qint64(f.switches()), qint64(f.plane.switches()) * gpusPerDomain);
    QCOMPARE(qint64(f.hostLinks), domains * gpusPerDomain);
    QCOMPARE(qint64(f.cores), qint64(0)); // no spine across rails
}

void TestNetwork::bottleneckRoute()
{
    // A --100 km, 64 x 400G-- B --100 km, 16 x 400G-- C;  A --150-- D --150-- C at 32 x 400G.
    Topology t;
    for (Id i = 0; i < 4; ++i)
        t.datacenters.push_back(makeDc(i, std::string(1, char('A' + i)), 1, 8));
    t.links = {makeLink(0, 0, 1, 100, 64), makeLink(1, 1, 2, 100, 16), makeLink(2, 0, 3, 150, 32),
               makeLink(3, 3, 2, 150, 32)};
    const TopologyGraph g(t);
    QVERIFY(g.isConnected());
    const auto r = g.route(0, 2);
    QVERIFY(r.has_value());
    QCOMPARE(r->links, (std::vector<Id>{0, 1})); // shortest by distance: via B
    QCOMPARE(r->datacenters, (std::vector<Id>{0, 1, 2}));
    QVERIFY(fuzzy(r->distanceKm, 200.0));
    QVERIFY(fuzzy(r->bottleneckGBps, 16 * 400 / 8.0)); // the B-C link decides: 800 GB/s
    QVERIFY(fuzzy(r->oneWayLatencyS, fibreLatencyS(200.0) + 2 * 20e-6));
    QVERIFY(fuzzy(g.maxBottleneckGBps(0, 2), 32 * 400 / 8.0)); // widest path: via D
    // Cut D off: C is still reachable via B; an island is not.
    t.datacenters.push_back(makeDc(9, "island", 1, 8));
    const TopologyGraph g2(t);
    QCOMPARE(g2.componentCount(), 2);
    QVERIFY(!g2.route(0, 9).has_value());
    QCOMPARE(g2.maxBottleneckGBps(0, 9), 0.0);
    // One Dijkstra from a source gives the same routes as one per pair, unreachable included.
    for (const Datacenter& from : t.datacenters) {
        const auto row = g2.routesFrom(from.id);
        QCOMPARE(row.size(), t.datacenters.size());
        for (std::size_t j = 0; j < t.datacenters.size(); ++j)
            QCOMPARE(row[j], g2.route(from.id, t.datacenters[j].id));
    }
}

void TestNetwork::dciLatency_data()
{
    QTest::addColumn<double>("km");
    QTest::addColumn<double>("expectedUsPerKm");
    QTest::newRow("10 km") << 10.0 << 4.897;
    QTest::newRow("100 km") << 100.0 << 4.897;
    QTest::newRow("1000 km") << 1000.0 << 4.897;
}

void TestNetwork::dciLatency()
{
    QFETCH(double, km);
    QFETCH(double, expectedUsPerKm);
    QVERIFY(fuzzy(fibreLatencyS(km) / km * 1e6, expectedUsPerKm, 1e-3));
    DciLink link = makeLink(0, 0, 1, km, 16);
    link.equipmentLatencyS = 30e-6;
    QVERIFY(fuzzy(dciOneWayLatencyS(link), fibreLatencyS(km) + 30e-6));
    QVERIFY(fuzzy(dciCapacityGBps(link), 800.0)); // 16 x 400 Gb/s
}

void TestNetwork::mathisThroughput_data()
{
    QTest::addColumn<double>("loss");
    QTest::newRow("1e-6") << 1e-6;
    QTest::newRow("1e-4") << 1e-4;
    QTest::newRow("1e-2") << 1e-2;
}

void TestNetwork::mathisThroughput()
{
    QFETCH(double, loss);
    const double rtt = 10e-3; // ~1,000 km round trip
    const double expected = 1460.0 / rtt * std::sqrt(1.5) / std::sqrt(loss) / 1e9;
    QVERIFY(fuzzy(mathisThroughputGBps(1460.0, rtt, loss), expected));
    // 100x the loss: 10x less throughput.
    QVERIFY(fuzzy(mathisThroughputGBps(1460.0, rtt, loss * 100), expected / 10));
}

void TestNetwork::amplifiers_data()
{
    QTest::addColumn<double>("km");
    QTest::addColumn<qint64>("amplifiers");
    QTest::newRow("10 km") << 10.0 << qint64(0);
    QTest::newRow("80 km") << 80.0 << qint64(0);
    QTest::newRow("81 km") << 81.0 << qint64(1);
    QTest::newRow("160 km") << 160.0 << qint64(1);
    QTest::newRow("500 km") << 500.0 << qint64(6);
}

void TestNetwork::amplifiers()
{
    QFETCH(double, km);
    QTEST(qint64(amplifiersPerFibrePair(km, 80.0)), "amplifiers");
}

void TestNetwork::dciBillOfMaterials()
{
    Topology t;
    t.datacenters = {makeDc(0, "west", 1, 8), makeDc(1, "east", 1, 8)};
    DciLink link = makeLink(0, 0, 1, 500, 80); // 80 wavelengths: two 64-channel fibre pairs
    std::vector<Warning> warnings;
    const auto items = archipelago::core::dciBillOfMaterials(link, t, testCatalog(), &warnings);
    const auto count = [&](const std::string& category) {
        std::int64_t n = 0;
        for (const BomItem& i : items)
            n += i.category == category ? i.count : 0;
        return n;
    };
    QCOMPARE(qint64(count("dci-optic")), qint64(160));   // one per wavelength per end
    QCOMPARE(qint64(count("line-terminal")), qint64(4)); // 2 pairs x 2 ends
    QCOMPARE(qint64(count("amplifier")), qint64(12));    // 6 per pair
    QCOMPARE(items.front().scope, std::string("dci west ↔ east"));
    QVERIFY(hasWarning(warnings, "dci-reach")); // 400ZR reaches 120 km, not 500
    const BomTotals total = bomTotal(items);
    QVERIFY(fuzzy(total.capexUsd, 160 * 6000.0 + 4 * 60000.0 + 12 * 25000.0));
}

void TestNetwork::fabricBillOfMaterials()
{
    // 2,048 GPUs on a leaf-spine of radix 64: 64 leaves, 32 spines, 2,048 host links (DAC,
    // 3 m) and 2,048 leaf-spine links (DR4 at 150 m, two transceivers each).
    const Datacenter dc = makeDc(0, "dc", 256, 8, FabricKind::Clos, 2);
    const Catalog cat = testCatalog();
    const FabricDesign f = designFabric(dc, cat);
    const auto items = archipelago::core::fabricBillOfMaterials(dc, f, cat);
    std::int64_t switches = 0, dac = 0, dr = 0, nics = 0;
    for (const BomItem& i : items) {
        switches += i.category == "switch" ? i.count : 0;
        nics += i.category == "nic" ? i.count : 0;
        dac += i.item == "400G-DAC" ? i.count : 0;
        dr += i.item == "400G-DR4" ? i.count : 0;
    }
    QCOMPARE(qint64(switches), qint64(96));
    QCOMPARE(qint64(nics), qint64(2048));
    QCOMPARE(qint64(dac), qint64(2048));
    QCOMPARE(qint64(dr), qint64(4096));
    QVERIFY(fuzzy(f.bisectionGBps, 1024 * 50.0));
}

void TestNetwork::linkTrafficSplitsLevels()
{
    // A ring over 4 x 32 (leaf x spine): level shares (3/4) : (31/32)/4, normalised.
    GroupPath path;
    path.levels = {LevelLink{LinkClass::Leaf, 4, 50.0, 1e-6, -1, 1},
                   LevelLink{LinkClass::Spine, 32, 50.0, 3e-6, -1, 1}};
    const auto ring = levelShares(path, false);
    const double a = 0.75, b = 31.0 / 32.0 / 4.0;
    QVERIFY(fuzzy(ring[0], a / (a + b)));
    // All-to-all: 3 peers on the leaf, 124 beyond.
    const auto a2a = levelShares(path, true);
    QVERIFY(fuzzy(a2a[0], 3.0 / 127.0));

    Scenario s = singleDc(128, 8, FabricKind::Clos, 8, 1);
    PlacementAnalysis p;
    p.dp = path;
    GroupBytes bytes;
    bytes.dp = 1e9;
    const auto traffic = linkTraffic(s, p, bytes, 10.0);
    QCOMPARE(traffic.size(), std::size_t(2));
    QVERIFY(fuzzy(traffic[0].bytesPerIteration + traffic[1].bytesPerIteration, 1e9 * 1024));
    QVERIFY(fuzzy(traffic[0].busyS, 1e9 * ring[0] / 50e9));
    QVERIFY(fuzzy(traffic[0].utilisation, traffic[0].busyS / 10.0));
}

QTEST_GUILESS_MAIN(TestNetwork)
