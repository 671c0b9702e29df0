#include "evaluation/runcost.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace archipelago::core {

RunCost runCostPerHour(const Scenario& scenario, const Catalog& catalog, double networkCapexUsd,
                       double networkPowerW)
{
    RunCost c;
    if (!catalog.economics)
        return c;
    const EconomicsAssumptions& a = *catalog.economics;
    c.priced = true;
    // Each datacenter's GPUs at its own accelerator's price and TDP.
    const std::vector<std::int64_t> placed = placedGpusPerDatacenter(scenario);
    const std::vector<Datacenter>& dcs = scenario.topology.datacenters;
    double gpus = 0.0;
    double gpuCapexUsd = 0.0;
    double gpuTdpW = 0.0;
    for (std::size_t i = 0; i < placed.size() && i < dcs.size(); ++i) {
        const double n = static_cast<double>(placed[i]);
        gpus += n;
        if (const AcceleratorSpec* acc = catalog.accelerator(dcs[i].accelerator)) {
            gpuCapexUsd += n * acc->priceUsd;
            gpuTdpW += n * acc->watts;
        }
    }
    c.capexUsd = gpuCapexUsd + gpus * a.hostPriceUsdPerGpu + networkCapexUsd;
    // A server at full load draws its GPUs' TDP times the server's ratio (DGX H100 user guide,
    // economics.server_power_source); the network's parts draw what the bill of materials says.
    c.itPowerW = gpuTdpW * a.serverPowerOverGpuTdp + networkPowerW;
    if (a.rentalUsdPerGpuHour > 0.0) {
        c.rented = true;
        c.usdPerHour = gpus * a.rentalUsdPerGpuHour;
    } else {
        const double itKw = c.itPowerW / 1000.0;
        // Straight-line depreciation over the service life (the 10-K policies cited in
        // economics.service_life_source), charged for the hours the run holds the cluster.
        c.ownershipUsdPerHour = c.capexUsd / (a.serviceLifeYears * kHoursPerYear);
        // Wholesale colocation is quoted per kW of IT load and month (CBRE), energy apart.
        c.facilityUsdPerHour = itKw * a.facilityUsdPerKwMonth * 12.0 / kHoursPerYear;
        // The facility draws the IT load times its PUE (The Green Grid's definition).
        c.energyUsdPerHour = itKw * a.pue * a.electricityUsdPerKwh;
        c.usdPerHour = c.ownershipUsdPerHour + c.facilityUsdPerHour + c.energyUsdPerHour;
    }
    c.usdPerGpuHour = gpus > 0.0 ? c.usdPerHour / gpus : 0.0;
    return c;
}

RunCost runCost(const Scenario& scenario, const Catalog& catalog, double networkCapexUsd,
                double networkPowerW, double timeToTrainS, double effectiveTimeToTrainS)
{
    RunCost c = runCostPerHour(scenario, catalog, networkCapexUsd, networkPowerW);
    c.runCostUsd = c.usdPerHour * std::max(0.0, timeToTrainS) / 3600.0;
    c.effectiveRunCostUsd = c.usdPerHour * std::max(0.0, effectiveTimeToTrainS) / 3600.0;
    return c;
}

} // namespace archipelago::core
