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
    // Each datacenter's GPUs at its own accelerator's price and TDP; a server at full load
    // draws its GPUs' TDP times the server's ratio (DGX H100 user guide,
    // economics.server_power_source).
    const std::vector<std::int64_t> placed = placedGpusPerDatacenter(scenario);
    const std::vector<Datacenter>& dcs = scenario.topology.datacenters;
    const std::size_t n = std::min(placed.size(), dcs.size());
    std::vector<double> serverW(n, 0.0);
    double gpus = 0.0;
    double gpuCapexUsd = 0.0;
    double serversW = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double count = static_cast<double>(placed[i]);
        gpus += count;
        if (const AcceleratorSpec* acc = catalog.accelerator(dcs[i].accelerator)) {
            gpuCapexUsd += count * acc->priceUsd;
            serverW[i] = count * acc->watts * a.serverPowerOverGpuTdp;
            serversW += serverW[i];
        }
    }
    c.capexUsd = gpuCapexUsd + gpus * a.hostPriceUsdPerGpu + networkCapexUsd;
    c.itPowerW = serversW + networkPowerW;
    if (a.rentalUsdPerGpuHour > 0.0) {
        c.rented = true;
        c.usdPerHour = gpus * a.rentalUsdPerGpuHour;
    } else {
        // Straight-line depreciation over the service life (the 10-K policies cited in
        // economics.service_life_source), charged for the hours the run holds the cluster.
        c.ownershipUsdPerHour = c.capexUsd / (a.serviceLifeYears * kHoursPerYear);
        for (std::size_t i = 0; i < n; ++i) {
            // Each building at its own site's rates; the network's power is shared among the
            // buildings in proportion to their servers' (the bill of materials has one total).
            const double share =
                serversW > 0.0 ? serverW[i] / serversW : 1.0 / static_cast<double>(n);
            const double itKw = (serverW[i] + share * networkPowerW) / 1000.0;
            const Datacenter& dc = dcs[i];
            const double facility =
                dc.facilityUsdPerKwMonth > 0.0 ? dc.facilityUsdPerKwMonth : a.facilityUsdPerKwMonth;
            const double pue = dc.pue > 0.0 ? dc.pue : a.pue;
            const double price =
                dc.electricityUsdPerKwh > 0.0 ? dc.electricityUsdPerKwh : a.electricityUsdPerKwh;
            // Wholesale colocation is quoted per kW of IT load and month (CBRE), energy apart.
            c.facilityUsdPerHour += itKw * facility * 12.0 / kHoursPerYear;
            // The facility draws the IT load times its PUE (The Green Grid's definition).
            c.energyUsdPerHour += itKw * pue * price;
        }
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
