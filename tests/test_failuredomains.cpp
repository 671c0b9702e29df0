// Failure domains follow the topology (evaluation/goodput.cpp, failureExposures): NIC ports and
// switches of the fabric the job is placed on, the buildings it uses, the fibre routes and
// wavelengths of the DCI hops its traffic crosses; a protected route, parallel routes and
// DiLoCo change what a cut does; the restart grows with the GPUs.
#include "evaluation/costmodel.h"
#include "evaluation/goodput.h"
#include "io/scenarioio.h"

#include "presetfixture.h"

#include <QtTest>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

using namespace archipelago;

namespace {

using tests::loadPreset;

const core::ReliabilityAssumptions& reliability()
{
    return core::reliabilityOf(core::builtinCatalog());
}

// Llama 3 405B's job split across two buildings by pipeline stage, `km` apart over one link.
core::Scenario twoBuildings(double km)
{
    core::Scenario s = loadPreset("llama3-405b-two-buildings.json");
    s.topology.links.front().distanceKm = km;
    return s;
}

// The exposures of one cause by its unit.
std::vector<core::FailureExposure> exposuresOf(const core::Scenario& s, const core::Evaluation& ev,
                                               core::FailureUnit unit)
{
    const core::TopologyModel topology(s.topology, core::builtinCatalog(),
                                       core::TopologyModel::Ownership::Borrow, false);
    std::vector<core::FailureExposure> out;
    for (const core::FailureExposure& e : core::failureExposures(s, ev, reliability(), topology))
        if (reliability().causes[e.cause].unit == unit)
            out.push_back(e);
    return out;
}

} // namespace

class TestFailureDomains : public QObject
{
    Q_OBJECT
private slots:
    void unprotectedCutStopsTheJobUntilSpliced();
    void protectedRouteAbsorbsCutsAndCostsItsAmplifiers();
    void parallelRoutesDegradeInsteadOfStopping();
    void onlyWavelengthInterrupts();
    void portsFollowTheNicsPerGpu();
    void spinesDegradeByTheirShareOfThePod();
    void restartGrowsWithTheGpus();
    void protectionRoundTrips();
    void replicaCrossesTheDciInWhatTrainingLeaves();
    void replicaWithoutAnotherBuildingIsSaid();
};

void TestFailureDomains::unprotectedCutStopsTheJobUntilSpliced()
{
    // Cuts grow with the route's length (per km), and each stops the synchronous job until the
    // fibre is spliced: a longer restart, a lower ETTR.
    const core::Evaluation near = core::evaluate(twoBuildings(10.0));
    const core::Evaluation far = core::evaluate(twoBuildings(1000.0));
    QVERIFY(near.ok && far.ok);
    const core::ReliabilityAssumptions& a = reliability();
    const auto cut = std::find_if(a.causes.begin(), a.causes.end(),
                                  [](const auto& c) { return c.unit == core::FailureUnit::DciKm; });
    QVERIFY(cut != a.causes.end());
    QVERIFY(std::abs(far.goodput.dciInterruptionsPerDay - 1000.0 * cut->perUnitPerDay()) < 1e-12);
    QVERIFY(std::abs(far.goodput.dciInterruptionsPerDay / near.goodput.dciInterruptionsPerDay -
                     100.0) < 1e-9);
    QVERIFY(far.goodput.restartS > near.goodput.restartS);
    QVERIFY(far.goodput.ettr < near.goodput.ettr);
    // Both buildings are failure domains.
    QVERIFY(std::abs(far.goodput.buildingInterruptionsPerDay -
                     2.0 * std::find_if(a.causes.begin(), a.causes.end(), [](const auto& c) {
                               return c.unit == core::FailureUnit::Datacenter;
                           })->perUnitPerDay()) < 1e-15);
}

void TestFailureDomains::protectedRouteAbsorbsCutsAndCostsItsAmplifiers()
{
    core::Scenario s = twoBuildings(1000.0);
    const core::Evaluation bare = core::evaluate(s);
    s.topology.links.front().opticalProtection = true;
    const core::Evaluation guarded = core::evaluate(s);
    QVERIFY(bare.ok && guarded.ok);
    QCOMPARE(guarded.goodput.dciInterruptionsPerDay, 0.0);
    QCOMPARE(guarded.goodput.absorbedPerDay, bare.goodput.dciInterruptionsPerDay);
    QVERIFY(guarded.goodput.ettr > bare.goodput.ettr);
    QCOMPARE(guarded.iterationTimeS, bare.iterationTimeS);
    // The second route's amplifiers are on the bill.
    const auto amplifiers = [](const core::Evaluation& ev) {
        std::int64_t n = 0;
        for (const core::BomItem& b : ev.bom)
            n += b.category == "amplifier" ? b.count : 0;
        return n;
    };
    QVERIFY(amplifiers(bare) > 0);
    QCOMPARE(amplifiers(guarded), 2 * amplifiers(bare));
    QVERIFY(guarded.networkCapexUsd > bare.networkCapexUsd);
}

void TestFailureDomains::parallelRoutesDegradeInsteadOfStopping()
{
    // The same 64 wavelengths as two links (two fibre routes) of 32: a cut takes half the
    // capacity until it is spliced, and the job runs on.
    core::Scenario s = twoBuildings(1000.0);
    core::DciLink second = s.topology.links.front();
    second.id = 1;
    s.topology.links.front().wavelengths = 32;
    second.wavelengths = 32;
    s.topology.links.push_back(second);
    const core::Evaluation one = core::evaluate(twoBuildings(1000.0));
    const core::Evaluation two = core::evaluate(s);
    QVERIFY(one.ok && two.ok);
    QCOMPARE(two.goodput.dciInterruptionsPerDay, 0.0);
    QVERIFY(two.goodput.degradationsPerDay > one.goodput.degradationsPerDay);
    const std::vector<core::FailureExposure> cuts = exposuresOf(s, two, core::FailureUnit::DciKm);
    QCOMPARE(cuts.size(), std::size_t{2});
    for (const core::FailureExposure& e : cuts) {
        QCOMPARE(e.effect, core::FailureEffect::Degrade);
        QCOMPARE(e.capacityShare, 0.5);
        QVERIFY(e.slowdown >= 0.0 && std::isfinite(e.slowdown));
        QCOMPARE(e.units, 1000.0);
    }
}

void TestFailureDomains::onlyWavelengthInterrupts()
{
    // A link of one wavelength: its transceiver is the hop's only path.
    core::Scenario s = twoBuildings(10.0);
    s.topology.links.front().wavelengths = 1;
    const core::Evaluation ev = core::evaluate(s);
    QVERIFY(ev.ok);
    const std::vector<core::FailureExposure> w = exposuresOf(s, ev, core::FailureUnit::Wavelength);
    QCOMPARE(w.size(), std::size_t{1});
    QCOMPARE(w.front().effect, core::FailureEffect::Interrupt);
    // With 64 the loss of one is 1/64 of the hop, and the job runs on.
    const core::Scenario wide = twoBuildings(10.0);
    const core::Evaluation evWide = core::evaluate(wide);
    const std::vector<core::FailureExposure> w64 =
        exposuresOf(wide, evWide, core::FailureUnit::Wavelength);
    QCOMPARE(w64.size(), std::size_t{1});
    QCOMPARE(w64.front().effect, core::FailureEffect::Degrade);
    QCOMPARE(w64.front().capacityShare, 1.0 / 64.0);
    QVERIFY(ev.goodput.dciInterruptionsPerDay > evWide.goodput.dciInterruptionsPerDay);
}

void TestFailureDomains::portsFollowTheNicsPerGpu()
{
    // Two NICs per GPU: twice the NIC links to fail.
    core::Scenario s = loadPreset("gpt3-175b-1024-a100.json");
    const core::Evaluation one = core::evaluate(s);
    for (core::Datacenter& dc : s.topology.datacenters)
        dc.fabric.nicsPerGpu = 2;
    const core::Evaluation two = core::evaluate(s);
    QVERIFY(one.ok && two.ok);
    const auto ports = [&](const core::Scenario& sc, const core::Evaluation& ev) {
        double units = 0.0;
        for (const core::FailureExposure& e : exposuresOf(sc, ev, core::FailureUnit::Port))
            units += e.units;
        return units;
    };
    QCOMPARE(ports(loadPreset("gpt3-175b-1024-a100.json"), one), 1024.0);
    QCOMPARE(ports(s, two), 2048.0);
    QVERIFY(two.goodput.fabricInterruptionsPerDay > one.goodput.fabricInterruptionsPerDay);
    QCOMPARE(two.goodput.serverInterruptionsPerDay, one.goodput.serverInterruptionsPerDay);
}

void TestFailureDomains::spinesDegradeByTheirShareOfThePod()
{
    const core::Scenario s = loadPreset("llama3-405b-16k-h100.json");
    const core::Evaluation ev = core::evaluate(s);
    QVERIFY(ev.ok);
    const core::TopologyModel topology(s.topology, core::builtinCatalog(),
                                       core::TopologyModel::Ownership::Borrow, false);
    const core::FabricDesign* f = topology.fabric(s.topology.datacenters.front().id);
    QVERIFY(f && f->plane.spines > 0);
    const std::vector<core::FailureExposure> spines =
        exposuresOf(s, ev, core::FailureUnit::SpineSwitch);
    QCOMPARE(spines.size(), std::size_t{1});
    const core::FailureExposure& e = spines.front();
    QCOMPARE(e.effect, core::FailureEffect::Degrade);
    QCOMPARE(e.capacityShare, static_cast<double>(std::max<std::int64_t>(1, f->plane.pods)) /
                                  static_cast<double>(f->plane.spines));
    QVERIFY(e.slowdown > 0.0 && e.slowdown < 1.0);
    // No spine interrupts, and the degraded time is what the expected missing spines cost.
    QVERIFY(ev.goodput.degradedS > 0.0);
    QVERIFY(ev.goodput.degradedS < 0.01 * ev.timeToTrainS);
    // A catalog in which spines interrupt (no ECMP reroute) moves them into the fabric count.
    core::Scenario strict = s;
    core::ReliabilityAssumptions a = reliability();
    for (core::FailureCause& c : a.causes)
        if (c.unit == core::FailureUnit::SpineSwitch)
            c.effect = core::FailureEffect::Interrupt;
    strict.catalogOverrides.reliability = a;
    const core::Evaluation hard = core::evaluate(strict);
    QVERIFY(hard.goodput.fabricInterruptionsPerDay >
            ev.goodput.fabricInterruptionsPerDay + 0.9 * e.perDay);
}

void TestFailureDomains::restartGrowsWithTheGpus()
{
    // MegaScale's fixed communicator initialisation: under 5 s on 2,048 GPUs, under 30 s on
    // 12,288; the built-in line goes through both.
    const core::ReliabilityAssumptions& a = reliability();
    QVERIFY(std::abs(core::communicatorInitS(a, 2048.0) - 5.0) < 0.1);
    QVERIFY(std::abs(core::communicatorInitS(a, 12288.0) - 30.0) < 0.1);
    const core::Evaluation small = core::evaluate(loadPreset("gpt3-175b-1024-a100.json"));
    const core::Evaluation big = core::evaluate(loadPreset("scale-across-100k-3-regions.json"));
    QVERIFY(big.goodput.restartS > small.goodput.restartS + 200.0);
}

void TestFailureDomains::protectionRoundTrips()
{
    core::Scenario s = twoBuildings(500.0);
    s.topology.links.front().opticalProtection = true;
    const std::string text = core::serializeScenario(s);
    QVERIFY(text.find("\"optical_protection\": true") != std::string::npos);
    const core::LoadResult back = core::parseScenario(text, "p.json");
    QVERIFY(back.ok());
    QVERIFY(back.scenario->topology.links.front().opticalProtection);
    // Unprotected links write no key: older files stay as they were.
    s.topology.links.front().opticalProtection = false;
    QVERIFY(core::serializeScenario(s).find("optical_protection") == std::string::npos);
    nlohmann::json j = nlohmann::json::parse(text);
    j["topology"]["dci_links"][0]["optical_protection"] = "yes";
    const core::LoadResult bad = core::parseScenario(j.dump(), "bad.json");
    QVERIFY(!bad.ok());
    QVERIFY(bad.errors.front().toString().find("/topology/dci_links/0/optical_protection") !=
            std::string::npos);
}

void TestFailureDomains::replicaCrossesTheDciInWhatTrainingLeaves()
{
    // Each building sends its half of the checkpoint to the other, one per direction, at the
    // line rate less training's mean rate that way; the next checkpoint waits for the copy.
    core::Scenario s = twoBuildings(1000.0);
    s.topology.links.front().wavelengths = 4;
    s.workload.checkpointRemoteReplica = true;
    const core::Evaluation ev = core::evaluate(s);
    QVERIFY(ev.ok);
    const core::Goodput& g = ev.goodput;
    QVERIFY(std::abs(g.replicaBytes / g.checkpointBytes - 1.0) < 1e-12);
    const core::DciLink& link = s.topology.links.front();
    const double lineBytesPerS = link.wavelengths * link.gbpsPerWavelength / 8.0 * 1e9;
    const auto dci = std::find_if(ev.traffic.begin(), ev.traffic.end(), [](const auto& t) {
        return t.linkClass == core::LinkClass::Dci;
    });
    QVERIFY(dci != ev.traffic.end());
    const double expected =
        std::max(g.checkpointBytes / 2.0 / (lineBytesPerS - dci->bytesAToB / ev.iterationTimeS),
                 g.checkpointBytes / 2.0 / (lineBytesPerS - dci->bytesBToA / ev.iterationTimeS));
    QVERIFY2(std::abs(g.replicaS / expected - 1.0) < 1e-9,
             qPrintable(QString("%1 vs %2 s").arg(g.replicaS).arg(expected)));
    QVERIFY(g.checkpointIntervalS >= g.checkpointWriteS + g.replicaS);
    // Four times the wavelengths: the copy is faster.
    s.topology.links.front().wavelengths = 16;
    QVERIFY(core::evaluate(s).goodput.replicaS < g.replicaS);
    // An asked interval shorter than the write and the copy is raised, and said.
    s.topology.links.front().wavelengths = 4;
    s.workload.checkpointIntervalS = 1.0;
    const core::Evaluation asked = core::evaluate(s);
    QCOMPARE(
        asked.goodput.checkpointIntervalS,
        std::max(asked.iterationTimeS, asked.goodput.checkpointWriteS + asked.goodput.replicaS));
    QVERIFY(std::any_of(asked.warnings.begin(), asked.warnings.end(), [](const auto& w) {
        return w.code == core::WarningCode::CheckpointInterval;
    }));
    // It survives a round trip.
    const core::LoadResult back = core::parseScenario(core::serializeScenario(s), "r.json");
    QVERIFY(back.ok() && back.scenario->workload.checkpointRemoteReplica);
}

void TestFailureDomains::replicaWithoutAnotherBuildingIsSaid()
{
    core::Scenario s = loadPreset("llama3-405b-16k-h100.json");
    const core::Evaluation plain = core::evaluate(s);
    s.workload.checkpointRemoteReplica = true;
    const core::Evaluation ev = core::evaluate(s);
    QVERIFY(ev.ok);
    QVERIFY(std::isinf(ev.goodput.replicaS));
    QCOMPARE(ev.goodput.replicaBytes, 0.0);
    QCOMPARE(ev.goodput.checkpointIntervalS, plain.goodput.checkpointIntervalS);
    const auto w = std::find_if(ev.warnings.begin(), ev.warnings.end(), [](const auto& x) {
        return x.code == core::WarningCode::CheckpointReplica;
    });
    QVERIFY(w != ev.warnings.end());
    QVERIFY(core::warningText(*w).find("reaches another") != std::string::npos);
}

QTEST_APPLESS_MAIN(TestFailureDomains)
#include "test_failuredomains.moc"
