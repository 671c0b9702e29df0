// Alpha-beta collective costs against hand-computed values (Thakur et al. 2005, section 4).
#include "network/collectives.h"
#include "network/fabric.h"

#include <QtTest>

#include <cmath>

using namespace archipelago::core;

namespace {
bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-12 + 1e-9 * std::abs(b);
}
} // namespace

class TestCollectives : public QObject
{
    Q_OBJECT
private slots:
    void flat_data();
    void flat();
    void hierarchicalAllReduceByHand();
    void fabricLevelsMergeIntoOneRing();
    void moreBandwidthNeverSlower();
    void ecmpEfficiencyBallsIntoBins();
    void lessUpperBandwidthNeverFaster();
    void nodeLimitedDispatchByHand();
};

void TestCollectives::flat_data()
{
    QTest::addColumn<QString>("op");
    QTest::addColumn<double>("bytes");
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("rate");
    QTest::addColumn<double>("alpha");
    QTest::addColumn<double>("expected");
    // 1 GB over 8 GPUs at 100 GB/s, 10 us per step.
    QTest::newRow("ring all-reduce")
        << "ring" << 1e9 << 8 << 100e9 << 1e-5 << 2.0 * 7 / 8 * 0.01 + 2.0 * 7 * 1e-5;
    QTest::newRow("tree all-reduce")
        << "tree" << 1e9 << 8 << 100e9 << 1e-5 << 2.0 * 0.01 + 2.0 * 3 * 1e-5;
    QTest::newRow("best of ring, tree (large)")
        << "ar" << 1e9 << 8 << 100e9 << 1e-5 << 2.0 * 7 / 8 * 0.01 + 2.0 * 7 * 1e-5;
    // 1 KB over 1024 GPUs: latency-bound, tree wins: 2*1e3/1e11 + 2*10*1e-5.
    QTest::newRow("best of ring, tree (small)")
        << "ar" << 1e3 << 1024 << 100e9 << 1e-5 << 2e-8 + 2e-4;
    QTest::newRow("reduce-scatter")
        << "rs" << 1e9 << 8 << 100e9 << 1e-5 << 7.0 / 8 * 0.01 + 7 * 1e-5;
    QTest::newRow("all-gather") << "ag" << 4e8 << 4 << 50e9 << 2e-6 << 0.75 * 0.008 + 3 * 2e-6;
    QTest::newRow("all-to-all") << "a2a" << 1e9 << 16 << 25e9 << 5e-6
                                << 15.0 / 16 * 0.04 + 15 * 5e-6;
    QTest::newRow("p2p") << "p2p" << 1e8 << 2 << 25e9 << 3e-6 << 3e-6 + 0.004;
    QTest::newRow("one participant") << "ring" << 1e9 << 1 << 100e9 << 1e-5 << 0.0;
}

void TestCollectives::flat()
{
    QFETCH(QString, op);
    QFETCH(double, bytes);
    QFETCH(int, n);
    QFETCH(double, rate);
    QFETCH(double, alpha);
    QFETCH(double, expected);
    double got = -1.0;
    if (op == "ring")
        got = ringAllReduceS(bytes, n, rate, alpha);
    else if (op == "tree")
        got = treeAllReduceS(bytes, n, rate, alpha);
    else if (op == "ar")
        got = allReduceS(bytes, n, rate, alpha);
    else if (op == "rs")
        got = reduceScatterS(bytes, n, rate, alpha);
    else if (op == "ag")
        got = allGatherS(bytes, n, rate, alpha);
    else if (op == "a2a")
        got = allToAllS(bytes, n, rate, alpha);
    else if (op == "p2p")
        got = p2pS(bytes, rate, alpha);
    QVERIFY2(near(got, expected), qPrintable(QString("%1 vs %2").arg(got).arg(expected)));
}

void TestCollectives::hierarchicalAllReduceByHand()
{
    EfficiencyParams eff;
    eff.scaleUpBusEfficiency = 0.8;
    eff.scaleOutBusEfficiency = 0.9;
    GroupPath path;
    path.levels.push_back({LinkClass::ScaleUp, 8, 300.0, 2e-6});
    path.levels.push_back({LinkClass::Leaf, 4, 25.0, 5e-6});
    const double S = 1e9;
    const double up = 300e9 * 0.8;
    const double out = 25e9 * 0.9;
    // Reduce-scatter and all-gather inside the node on S, all-reduce across nodes on S/8, and
    // NCCL's launch once per collective.
    const double expected =
        kCollectiveBaseLatencyS + 2.0 * (7.0 / 8 * S / up + 7 * 2e-6) +
        std::min(2.0 * 3 / 4 * (S / 8) / out + 2 * 3 * 5e-6, 2.0 * (S / 8) / out + 2 * 2 * 5e-6);
    QVERIFY(near(hierarchicalAllReduce(S, path, eff).timeS, expected));
    const double rs =
        kCollectiveBaseLatencyS + 7.0 / 8 * S / up + 7 * 2e-6 + 3.0 / 4 * (S / 8) / out + 3 * 5e-6;
    QVERIFY(near(hierarchicalReduceScatter(S, path, eff).timeS, rs));
    QVERIFY(near(hierarchicalAllGather(S, path, eff).timeS, rs));
}

void TestCollectives::fabricLevelsMergeIntoOneRing()
{
    // NCCL rings span all nodes: leaf x spine levels act as one ring of 16, which moves at its
    // slowest edge: the spine level's rate (placement gives it the rate of one edge crossing
    // the leaf uplinks). ECMP is placement's business now, not a fixed factor here: it used to
    // multiply every spine and core level by 0.632 whatever the flows and paths.
    EfficiencyParams eff;
    eff.scaleOutBusEfficiency = 1.0;
    GroupPath path;
    path.levels.push_back({LinkClass::Leaf, 8, 25.0, 3e-6});
    path.levels.push_back({LinkClass::Spine, 2, 10.0, 5e-6});
    QVERIFY(near(levelBytesPerS(path.levels[1], eff), 10e9));
    const CollectiveCost c = hierarchicalReduceScatter(1e9, path, eff);
    QVERIFY(near(c.timeS, kCollectiveBaseLatencyS + reduceScatterS(1e9, 16, 10e9, 5e-6)));
    // 16 members, 8 per leaf: 2 of the ring's 16 edges leave a leaf, 14 turn at it.
    const double v = 15.0 / 16 * 1e9;
    QVERIFY(near(c.bytesPerLevel[0], v * 14 / 16));
    QVERIFY(near(c.bytesPerLevel[1], v * 2 / 16));
    // Three tiers: 4 per leaf, 2 leaves per pod, 4 pods (N = 32): 24 edges turn at the leaf,
    // 4 at the spine, 4 cross the core.
    GroupPath three;
    three.levels.push_back({LinkClass::Leaf, 4, 50.0, 3e-6});
    three.levels.push_back({LinkClass::Spine, 2, 50.0, 5e-6});
    three.levels.push_back({LinkClass::Core, 4, 50.0, 7e-6});
    const CollectiveCost a = hierarchicalAllReduce(1e9, three, eff);
    const double w = 2.0 * 31 / 32 * 1e9;
    QVERIFY(near(a.bytesPerLevel[0], w * 24 / 32));
    QVERIFY(near(a.bytesPerLevel[1], w * 4 / 32));
    QVERIFY(near(a.bytesPerLevel[2], w * 4 / 32));
}

void TestCollectives::moreBandwidthNeverSlower()
{
    EfficiencyParams eff;
    GroupPath path;
    path.levels.push_back({LinkClass::ScaleUp, 8, 100.0, 2e-6});
    path.levels.push_back({LinkClass::Spine, 16, 25.0, 5e-6});
    double previous = 1e300;
    for (double bw : {12.5, 25.0, 50.0, 100.0, 400.0}) {
        path.levels[1].bandwidthGBps = bw;
        const double t = hierarchicalAllReduce(3e8, path, eff).timeS;
        QVERIFY(t <= previous);
        previous = t;
    }
}

void TestCollectives::ecmpEfficiencyBallsIntoBins()
{
    // One path: nothing to collide on.
    QCOMPARE(ecmpEfficiency(1.0, 1.0), 1.0);
    QCOMPARE(ecmpEfficiency(64.0, 1.0), 1.0);
    // One flow always finds a free path.
    QVERIFY(near(ecmpEfficiency(1.0, 32.0), 1.0));
    // f = n: 1 - (1 - 1/n)^n, from 0.656 (n = 8) towards 1 - 1/e (network-physics.md A5).
    for (const double n : {8.0, 16.0, 32.0, 64.0}) {
        const double e = ecmpEfficiency(n, n);
        QVERIFY2(e > 0.6 && e < 0.7, qPrintable(QString::number(e)));
        QVERIFY(near(e, 1.0 - std::pow(1.0 - 1.0 / n, n)));
    }
    QVERIFY(std::abs(ecmpEfficiency(1e6, 1e6) - (1.0 - std::exp(-1.0))) < 1e-6);
    // More flows than paths: the load evens out, efficiency -> 1.
    double previous = 0.0;
    for (const double f : {32.0, 64.0, 128.0, 512.0, 4096.0}) {
        const double e = ecmpEfficiency(f, 32.0);
        QVERIFY(e >= previous);
        previous = e;
    }
    QVERIFY(previous > 0.999);
}

void TestCollectives::lessUpperBandwidthNeverFaster()
{
    // A DP ring over leaf x spine x core: a thinner core never makes the collective faster,
    // and it only costs anything once the core edge is the slowest.
    EfficiencyParams eff;
    GroupPath path;
    path.levels.push_back({LinkClass::Leaf, 4, 50.0, 3e-6});
    path.levels.push_back({LinkClass::Spine, 8, 50.0, 5e-6});
    path.levels.push_back({LinkClass::Core, 6, 50.0, 7e-6});
    const double fast = hierarchicalAllReduce(1e10, path, eff).timeS;
    double previous = 0.0;
    for (double bw : {400.0, 50.0, 25.0, 10.0, 1.0}) {
        path.levels[2].bandwidthGBps = bw;
        const double t = hierarchicalAllReduce(1e10, path, eff).timeS;
        QVERIFY(t >= previous);
        if (bw >= 50.0)
            QVERIFY(near(t, fast));
        previous = t;
    }
}

// DeepSeek-V3's expert-parallel group: 64 GPUs on 8 nodes of 8, top-8 routing. A flat
// all-to-all sends each of a token's 8 copies to its expert, 56 of 64 destinations across
// the fabric: 7 copies per token. Node-limited routing sends it once per distinct remote node
// (report sections 2.1.2 and 3.2.2): with the k = 8 experts spread over r = min(M, 8) nodes,
// r (1 - (1 - 1/r)^8) nodes are occupied, 7/8 of them remote; the copies for GPUs of the node
// go over NVLink: 8 x 7/8.
void TestCollectives::nodeLimitedDispatchByHand()
{
    EfficiencyParams eff;
    eff.scaleUpBusEfficiency = 1.0;
    eff.scaleOutBusEfficiency = 1.0;
    GroupPath path;
    path.levels.push_back({LinkClass::ScaleUp, 8, 200.0, 0.0});
    path.levels.push_back({LinkClass::Leaf, 8, 50.0, 0.0});
    const double S = 1e8; // the GPU's tokens once
    const CollectiveCost flat = hierarchicalAllToAll(8.0 * S, path, eff);
    QVERIFY(near(flat.bytesPerLevel[1], 7.0 * S));
    QVERIFY(near(flat.bytesPerLevel[0], 8.0 * 7.0 / 64 * S));

    const auto remote = [](double r) { return r * (1.0 - std::pow(1.0 - 1.0 / r, 8.0)) * 7 / 8; };
    const CollectiveCost four = nodeLimitedAllToAll(S, 8.0, 4, path, eff);
    QVERIFY(near(four.bytesPerLevel[1], remote(4.0) * S)); // 3.15 copies
    QVERIFY(near(four.bytesPerLevel[0], 7.0 * S));
    QVERIFY(near(four.timeS, std::max(remote(4.0) * S / 50e9, 7.0 * S / 200e9)));
    QVERIFY(near(remoteNodeCopies(8.0, 4, 8.0), remote(4.0)));
    // No binding limit (M = nodes): still one copy per distinct node, 4.59 per token.
    const CollectiveCost eight = nodeLimitedAllToAll(S, 8.0, 8, path, eff);
    QVERIFY(near(eight.bytesPerLevel[1], remote(8.0) * S));
    // All experts on one node: at most one fabric copy, remote 7 times in 8.
    QVERIFY(near(nodeLimitedAllToAll(S, 8.0, 1, path, eff).bytesPerLevel[1], 7.0 / 8 * S));
    QVERIFY(four.bytesPerLevel[1] < eight.bytesPerLevel[1]);
    QVERIFY(eight.bytesPerLevel[1] < flat.bytesPerLevel[1]);
    QVERIFY(four.timeS < flat.timeS);
    // One node: nothing crosses the fabric.
    GroupPath node;
    node.levels.push_back({LinkClass::ScaleUp, 8, 200.0, 0.0});
    QVERIFY(near(nodeLimitedAllToAll(S, 8.0, 4, node, eff).timeS, 7.0 * S / 200e9));
}

QTEST_APPLESS_MAIN(TestCollectives)
#include "test_collectives.moc"
