// Alpha-beta collective costs against hand-computed values (Thakur et al. 2005, section 4).
#include "network/collectives.h"

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
    // Reduce-scatter and all-gather inside the node on S, all-reduce across nodes on S/8.
    const double expected =
        2.0 * (7.0 / 8 * S / up + 7 * 2e-6) +
        std::min(2.0 * 3 / 4 * (S / 8) / out + 2 * 3 * 5e-6, 2.0 * (S / 8) / out + 2 * 2 * 5e-6);
    QVERIFY(near(hierarchicalAllReduce(S, path, eff).timeS, expected));
    const double rs = 7.0 / 8 * S / up + 7 * 2e-6 + 3.0 / 4 * (S / 8) / out + 3 * 5e-6;
    QVERIFY(near(hierarchicalReduceScatter(S, path, eff).timeS, rs));
    QVERIFY(near(hierarchicalAllGather(S, path, eff).timeS, rs));
}

void TestCollectives::fabricLevelsMergeIntoOneRing()
{
    // NCCL rings span all nodes: leaf x spine levels act as one ring of 16 at the slower
    // (ECMP-hashed spine) rate.
    EfficiencyParams eff;
    eff.scaleOutBusEfficiency = 1.0;
    GroupPath path;
    path.levels.push_back({LinkClass::Leaf, 8, 25.0, 3e-6});
    path.levels.push_back({LinkClass::Spine, 2, 25.0, 5e-6});
    const double rate = levelBytesPerS(path.levels[1], eff);
    QVERIFY(rate < 25e9);
    QVERIFY(
        near(hierarchicalReduceScatter(1e9, path, eff).timeS, reduceScatterS(1e9, 16, rate, 5e-6)));
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

QTEST_APPLESS_MAIN(TestCollectives)
#include "test_collectives.moc"
