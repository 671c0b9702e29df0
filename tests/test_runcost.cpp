// What the run costs: the cluster's cost per hour (owned hardware over its service life,
// colocation and energy, or a rental rate) times the run's wall time (evaluation/runcost.h).
#include "evaluation/costmodel.h"
#include "evaluation/goodput.h"
#include "evaluation/runcost.h"
#include "io/scenarioio.h"

#include "presetfixture.h"

#include <QtTest>
#include <nlohmann/json.hpp>

#include <cmath>

using namespace archipelago;

namespace {

using tests::loadPreset;

const core::EconomicsAssumptions& economics()
{
    return *core::builtinCatalog().economics;
}

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

} // namespace

class TestRunCost : public QObject
{
    Q_OBJECT
private slots:
    void everyAssumptionHasASource();
    void hourlyCostIsItsParts();
    void aGpuHourIsPricedLikeAnOwnedCluster();
    void failuresCostTheirHours();
    void eachDatacenterPaysForItsOwnAccelerators();
    void eachBuildingPaysItsOwnSite();
    void rentalReplacesOwnership();
    void withoutEconomicsTheRunIsNotPriced();
    void economicsRoundTripAndMalformedAreErrors();
};

void TestRunCost::everyAssumptionHasASource()
{
    QVERIFY(core::builtinCatalog().economics.has_value());
    const core::EconomicsAssumptions& a = economics();
    for (const std::string* source :
         {&a.serviceLifeSource, &a.hostPriceSource, &a.serverPowerSource, &a.facilitySource,
          &a.pueSource, &a.electricitySource})
        QVERIFY(!source->empty());
    QVERIFY(a.serviceLifeYears >= 4.0 && a.serviceLifeYears <= 6.0);
    QVERIFY(a.pue >= 1.0 && a.pue < 2.0);
    QCOMPARE(a.rentalUsdPerGpuHour, 0.0); // the built-in catalog prices an owned cluster
}

void TestRunCost::hourlyCostIsItsParts()
{
    // 1,024 A100 in one building: capex and IT power from the catalog and the bill of
    // materials, each part of the hourly cost from its own assumption.
    const core::Scenario s = loadPreset("gpt3-175b-1024-a100.json");
    const core::Evaluation ev = core::evaluate(s);
    QVERIFY(ev.ok);
    const core::RunCost& c = ev.runCost;
    QVERIFY(c.priced);
    QVERIFY(!c.rented);
    const core::AcceleratorSpec& gpu = *core::builtinCatalog().accelerator("A100-SXM4-80GB");
    const core::EconomicsAssumptions& a = economics();
    const double gpus = static_cast<double>(ev.gpus);
    QVERIFY(near(c.capexUsd, gpus * (gpu.priceUsd + a.hostPriceUsdPerGpu) + ev.networkCapexUsd));
    QVERIFY(near(c.itPowerW, gpus * gpu.watts * a.serverPowerOverGpuTdp + ev.networkPowerW));
    QVERIFY(near(c.ownershipUsdPerHour, c.capexUsd / (a.serviceLifeYears * 365.25 * 24.0)));
    QVERIFY(near(c.facilityUsdPerHour,
                 c.itPowerW / 1000.0 * a.facilityUsdPerKwMonth * 12.0 / (365.25 * 24.0)));
    QVERIFY(near(c.energyUsdPerHour, c.itPowerW / 1000.0 * a.pue * a.electricityUsdPerKwh));
    QVERIFY(near(c.usdPerHour, c.ownershipUsdPerHour + c.facilityUsdPerHour + c.energyUsdPerHour));
    QVERIFY(near(c.usdPerGpuHour, c.usdPerHour / gpus));
    QVERIFY(near(c.runCostUsd, c.usdPerHour * ev.timeToTrainS / 3600.0));
    QVERIFY(near(c.effectiveRunCostUsd, c.usdPerHour * ev.goodput.effectiveTimeToTrainS / 3600.0));
    // The same figures whatever computes them: the explorer prices a point with the topology
    // variant's capex and power.
    const core::RunCost again =
        core::runCost(s, core::effectiveCatalog(s), ev.networkCapexUsd, ev.networkPowerW,
                      ev.timeToTrainS, ev.goodput.effectiveTimeToTrainS);
    QCOMPARE(again.effectiveRunCostUsd, c.effectiveRunCostUsd);
}

void TestRunCost::aGpuHourIsPricedLikeAnOwnedCluster()
{
    // An owned H100's hour costs less than a cloud's on-demand rate and more than its energy:
    // between $0.5 and $3. Hardware is most of it, energy the least.
    const core::Evaluation ev = core::evaluate(loadPreset("llama3-405b-16k-h100.json"));
    const core::RunCost& c = ev.runCost;
    qInfo("H100: $%.3f per GPU-hour (hardware %.0f%%, colocation %.0f%%, energy %.0f%%), "
          "%.1f MW of IT load, run $%.1f M with failures",
          c.usdPerGpuHour, 100.0 * c.ownershipUsdPerHour / c.usdPerHour,
          100.0 * c.facilityUsdPerHour / c.usdPerHour, 100.0 * c.energyUsdPerHour / c.usdPerHour,
          c.itPowerW / 1e6, c.effectiveRunCostUsd / 1e6);
    QVERIFY(c.usdPerGpuHour > 0.5 && c.usdPerGpuHour < 3.0);
    QVERIFY(c.ownershipUsdPerHour > c.facilityUsdPerHour);
    QVERIFY(c.facilityUsdPerHour > c.energyUsdPerHour);
    // 16,384 servers' GPUs at 700 W x 1.82, plus the network: 20 to 25 MW.
    QVERIFY(c.itPowerW > 20e6 && c.itPowerW < 25e6);
}

void TestRunCost::failuresCostTheirHours()
{
    // The run with failures costs more than without, in the ratio of their wall times; a fleet
    // with no failures pays for the failure-free time (and the checkpoints it then skips).
    core::Scenario s = loadPreset("llama3-405b-16k-h100.json");
    const core::Evaluation ev = core::evaluate(s);
    const core::RunCost& c = ev.runCost;
    QVERIFY(c.effectiveRunCostUsd > c.runCostUsd);
    QVERIFY(near(c.effectiveRunCostUsd / c.runCostUsd,
                 ev.goodput.effectiveTimeToTrainS / ev.timeToTrainS));
    core::ReliabilityAssumptions none = core::reliabilityOf(core::builtinCatalog());
    for (core::FailureCause& cause : none.causes)
        cause.events = 0.0;
    s.catalogOverrides.reliability = none;
    const core::Evaluation spotless = core::evaluate(s);
    QVERIFY(near(spotless.runCost.effectiveRunCostUsd, spotless.runCost.runCostUsd));
    QVERIFY(spotless.runCost.effectiveRunCostUsd < c.effectiveRunCostUsd);
}

void TestRunCost::eachDatacenterPaysForItsOwnAccelerators()
{
    // Two buildings with different accelerators: each one's GPUs at its own price and TDP.
    core::Scenario s = loadPreset("llama3-405b-two-buildings.json");
    QVERIFY(s.topology.datacenters.size() == 2);
    const core::Catalog catalog = core::effectiveCatalog(s);
    const core::RunCost same = core::runCostPerHour(s, catalog, 0.0, 0.0);
    s.topology.datacenters[1].accelerator = "H200-SXM-141GB";
    const core::RunCost mixed = core::runCostPerHour(s, catalog, 0.0, 0.0);
    const std::vector<std::int64_t> placed = core::placedGpusPerDatacenter(s);
    const double h200 = static_cast<double>(placed[1]);
    QVERIFY(h200 > 0.0);
    const double priceStep = catalog.accelerator("H200-SXM-141GB")->priceUsd -
                             catalog.accelerator("H100-SXM5-80GB")->priceUsd;
    QVERIFY(near(mixed.capexUsd - same.capexUsd, h200 * priceStep));
    QCOMPARE(mixed.itPowerW, same.itPowerW); // both 700 W
    QVERIFY(mixed.usdPerHour > same.usdPerHour);
}

void TestRunCost::eachBuildingPaysItsOwnSite()
{
    // Two buildings of 8,192 H100 each; the second in a region with cheaper energy, a worse
    // PUE and cheaper colocation. Each pays its own rates on its IT load, the network's power
    // shared in proportion to the servers'; the hardware is unchanged.
    core::Scenario s = loadPreset("llama3-405b-two-buildings.json");
    const core::Catalog catalog = core::effectiveCatalog(s);
    const double networkW = 2e6;
    const core::RunCost same = core::runCostPerHour(s, catalog, 1e8, networkW);
    core::Datacenter& b = s.topology.datacenters[1];
    b.electricityUsdPerKwh = 0.04;
    b.pue = 1.4;
    b.facilityUsdPerKwMonth = 120.0;
    const core::RunCost sited = core::runCostPerHour(s, catalog, 1e8, networkW);
    QCOMPARE(sited.ownershipUsdPerHour, same.ownershipUsdPerHour);
    QCOMPARE(sited.itPowerW, same.itPowerW);
    const std::vector<std::int64_t> placed = core::placedGpusPerDatacenter(s);
    const core::EconomicsAssumptions& a = economics();
    const double serverW = 700.0 * a.serverPowerOverGpuTdp;
    const double aKw =
        (static_cast<double>(placed[0]) * serverW +
         networkW * static_cast<double>(placed[0]) / static_cast<double>(placed[0] + placed[1])) /
        1000.0;
    const double bKw = sited.itPowerW / 1000.0 - aKw;
    QVERIFY(near(sited.energyUsdPerHour, aKw * a.pue * a.electricityUsdPerKwh + bKw * 1.4 * 0.04));
    QVERIFY(near(sited.facilityUsdPerHour,
                 (aKw * a.facilityUsdPerKwMonth + bKw * 120.0) * 12.0 / core::kHoursPerYear));
    QVERIFY(sited.usdPerHour < same.usdPerHour);
    // The building's figures are saved with it; an impossible PUE is refused with its pointer.
    const core::LoadResult back = core::parseScenario(core::serializeScenario(s), "sited.json");
    QVERIFY(back.ok());
    QCOMPARE(back.scenario->topology.datacenters[1].pue, 1.4);
    QCOMPARE(back.scenario->topology.datacenters[1].electricityUsdPerKwh, 0.04);
    QCOMPARE(back.scenario->topology.datacenters[1].facilityUsdPerKwMonth, 120.0);
    QCOMPARE(back.scenario->topology.datacenters[0].pue, 0.0);
    b.pue = 0.8;
    const core::LoadResult bad = core::parseScenario(core::serializeScenario(s), "bad.json");
    QVERIFY(!bad.ok());
    bool named = false;
    for (const auto& d : bad.errors)
        named = named || d.toString().find("/topology/datacenters/1/pue") != std::string::npos;
    QVERIFY(named);
}

void TestRunCost::rentalReplacesOwnership()
{
    // A rental rate prices every GPU-hour at it, nothing else; the capex is still reported.
    core::Scenario s = loadPreset("gpt3-175b-1024-a100.json");
    core::EconomicsAssumptions rented = economics();
    rented.rentalUsdPerGpuHour = 2.5;
    rented.rentalSource = "our cloud contract, 2026";
    s.catalogOverrides.economics = rented;
    const core::Evaluation ev = core::evaluate(s);
    const core::RunCost& c = ev.runCost;
    QVERIFY(c.priced && c.rented);
    QCOMPARE(c.usdPerGpuHour, 2.5);
    QCOMPARE(c.usdPerHour, 2.5 * static_cast<double>(ev.gpus));
    QCOMPARE(c.ownershipUsdPerHour + c.facilityUsdPerHour + c.energyUsdPerHour, 0.0);
    QVERIFY(c.capexUsd > 0.0);
    QVERIFY(near(c.effectiveRunCostUsd, 2.5 * ev.goodput.effectiveGpuHours));
}

void TestRunCost::withoutEconomicsTheRunIsNotPriced()
{
    const core::Scenario s = loadPreset("gpt3-175b-1024-a100.json");
    core::Catalog catalog = core::effectiveCatalog(s);
    catalog.economics.reset();
    const core::Evaluation ev = core::evaluate(s, catalog, core::EvaluateOptions{});
    QVERIFY(ev.ok);
    QVERIFY(!ev.runCost.priced);
    QCOMPARE(ev.runCost.effectiveRunCostUsd, 0.0);
    QCOMPARE(ev.runCost.usdPerHour, 0.0);
}

void TestRunCost::economicsRoundTripAndMalformedAreErrors()
{
    core::Scenario s = loadPreset("gpt3-175b-1024-a100.json");
    core::EconomicsAssumptions mine = economics();
    mine.electricityUsdPerKwh = 0.04;
    mine.pue = 1.3;
    mine.electricitySource = "our utility contract";
    s.catalogOverrides.economics = mine;
    const std::string text = core::serializeScenario(s);
    const core::LoadResult back = core::parseScenario(text, "s.json");
    QVERIFY(back.ok());
    QVERIFY(back.scenario->catalogOverrides.economics == mine);
    // The scenario's energy price is the one its run pays.
    const core::Evaluation cheap = core::evaluate(*back.scenario);
    QVERIFY(near(cheap.runCost.energyUsdPerHour, cheap.runCost.itPowerW / 1000.0 * 1.3 * 0.04));

    const nlohmann::json j = nlohmann::json::parse(text);
    const auto errorAt = [&](const std::string& pointer, const nlohmann::json* value) {
        nlohmann::json bad = j;
        const nlohmann::json::json_pointer at(pointer);
        if (value)
            bad[at] = *value;
        else
            bad[at.parent_pointer()].erase(at.back());
        const core::LoadResult r = core::parseScenario(bad.dump(), "bad.json");
        QVERIFY2(!r.ok(), pointer.c_str());
        bool named = false;
        for (const auto& d : r.errors)
            named = named || (d.toString().find("bad.json") != std::string::npos &&
                              d.toString().find(pointer) != std::string::npos);
        QVERIFY2(named, pointer.c_str());
    };
    const nlohmann::json lowPue = 0.9, noLife = 0, words = "cheap", tooDear = 5000;
    errorAt("/catalog/economics/pue", &lowPue);
    errorAt("/catalog/economics/service_life_years", &noLife);
    errorAt("/catalog/economics/electricity_usd_per_kwh", &words);
    errorAt("/catalog/economics/rental_usd_per_gpu_hour", &tooDear);
    errorAt("/catalog/economics/facility_usd_per_kw_month", nullptr); // required
}

QTEST_APPLESS_MAIN(TestRunCost)
#include "test_runcost.moc"
