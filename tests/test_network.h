// Network area tests: shared fixtures and the test class.
#pragma once

#include "model/evaluation.h"
#include "model/scenario.h"

#include <QObject>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace nettest {
using namespace archipelago::core;

inline bool fuzzy(double a, double b, double rel = 1e-9)
{
    return std::fabs(a - b) <= rel * std::max({1.0, std::fabs(a), std::fabs(b)});
}

// A small catalog with the figures the tests need (test data, not the built-in prices).
inline Catalog testCatalog()
{
    Catalog c;
    AcceleratorSpec h100;
    h100.name = "H100";
    h100.scaleUpGBpsPerDirection = 450.0;
    h100.nicGbps = 400.0;
    c.accelerators.push_back(h100);
    c.nics.push_back({"NIC-400G", 400.0, 25.0, 2000.0, "test"});
    c.switches.push_back({"SW-64x400G", 64, 400.0, 1000.0, 30000.0, "test"});
    c.switches.push_back({"SW-128x400G", 128, 400.0, 1500.0, 60000.0, "test"});
    c.optics.push_back({"400G-DAC", OpticReach::Dac, 400.0, 3.0, 0.1, 200.0, false, "test"});
    c.optics.push_back({"400G-DR4", OpticReach::Dr, 400.0, 500.0, 9.0, 800.0, false, "test"});
    c.optics.push_back({"400G-FR4", OpticReach::Fr, 400.0, 2000.0, 10.0, 1000.0, false, "test"});
    c.optics.push_back({"400ZR", OpticReach::Zr, 400.0, 120000.0, 18.0, 6000.0, true, "test"});
    c.lineSystems.push_back({"Metro", 80.0, 25000.0, 150.0, 60000.0, 400.0, 64, 600.0, "test"});
    return c;
}

inline Datacenter makeDc(Id id, const std::string& name, std::int64_t domains, int gpusPerDomain,
                         FabricKind kind = FabricKind::Clos, int tiers = 2,
                         const std::string& sw = "SW-64x400G",
                         const std::string& accelerator = "H100")
{
    Datacenter dc;
    dc.id = id;
    dc.name = name;
    dc.accelerator = accelerator;
    dc.fabric.kind = kind;
    dc.fabric.tiers = tiers;
    dc.fabric.switchModel = sw;
    dc.fabric.nicModel = accelerator == "H100" ? "NIC-400G" : "ConnectX-7-400G";
    dc.pods.push_back({0, "pod", 1, static_cast<int>(domains), gpusPerDomain});
    return dc;
}

inline DciLink makeLink(Id id, Id a, Id b, double km, int wavelengths)
{
    DciLink l;
    l.id = id;
    l.a = a;
    l.b = b;
    l.distanceKm = km;
    l.wavelengths = wavelengths;
    l.gbpsPerWavelength = 400.0;
    l.optic = "400ZR";
    l.lineSystem = "Metro";
    return l;
}

inline Scenario singleDc(std::int64_t domains, int g, FabricKind kind, int tp, int pp, int ep = 1)
{
    Scenario s;
    s.topology.datacenters.push_back(makeDc(0, "dc-west", domains, g, kind));
    s.parallelism.tp = tp;
    s.parallelism.pp = pp;
    s.parallelism.ep = ep;
    s.workload.layers = 8;
    return s;
}

// Two datacenters of `domains` 8-GPU domains each, joined by a 10 km link of 16 x 400G.
inline Scenario twoDcs(std::int64_t domains)
{
    Scenario s;
    s.topology.datacenters.push_back(makeDc(0, "dc-west", domains, 8));
    s.topology.datacenters.push_back(makeDc(1, "dc-east", domains, 8));
    s.topology.links.push_back(makeLink(0, 0, 1, 10.0, 16));
    s.parallelism.tp = 8;
    s.workload.layers = 8;
    return s;
}

inline bool hasWarning(const std::vector<Warning>& ws, const std::string& code)
{
    const std::optional<WarningCode> key = warningCodeFromString(code);
    if (!key)
        qFatal("unknown warning code %s", code.c_str());
    return std::any_of(ws.begin(), ws.end(), [&](const Warning& w) { return w.code == *key; });
}

} // namespace nettest

class TestNetwork : public QObject
{
    Q_OBJECT

private slots:
    void closCounts_data();
    void closCounts();
    void railOnlyCounts_data();
    void railOnlyCounts();
    void bottleneckRoute();
    void dciLatency_data();
    void dciLatency();
    void mathisThroughput_data();
    void mathisThroughput();
    void tpInsideScaleUp();
    void tpExceedsScaleUp();
    void dpAcrossFabric_data();
    void dpAcrossFabric();
    void dpAcrossTwoDatacenters();
    void ppBoundaryMoves_data();
    void ppBoundaryMoves();
    void railOnlyAllToAllForwarding();
    void amplifiers_data();
    void amplifiers();
    void dciBillOfMaterials();
    void fabricBillOfMaterials();
    void linkTrafficSplitsLevels();
    void railOnlyStudy_data();
    void railOnlyStudy();
    void declaredPodsChangeLayout();
    void dpAcrossOversubscribedPods();
    void oversubscriptionMonotonic();
    void parallelLinksShareTheirHop();
    void parallelLinksOfOtherSettingsAreNamed();
    void bundlesKeepUnlikeLinksApart();
};
