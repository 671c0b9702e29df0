// What an hour of the cluster costs: editable assumptions of the catalog
// (resources/catalog.json, "economics"), each with its source. The run-cost pass
// (evaluation/runcost.h) turns them, the GPUs and the network's bill of materials into a cost
// per hour and the cost of the run.
#pragma once

#include <string>

namespace archipelago::core {

struct EconomicsAssumptions
{
    // Owned hardware is amortised straight-line over its service life (GPUs, servers, network).
    double serviceLifeYears = 0.0;
    std::string serviceLifeSource;
    // The server around each GPU (CPUs, memory, local storage, chassis, power supplies), which
    // the accelerator's price_usd leaves out.
    double hostPriceUsdPerGpu = 0.0;
    std::string hostPriceSource;
    // A server's power at full load over its GPUs' TDP (CPUs, memory, fans, NICs, conversion).
    double serverPowerOverGpuTdp = 1.0;
    std::string serverPowerSource;
    // The building: a wholesale colocation rate per kW of IT load and month (space, power and
    // cooling plant, not the energy), and the energy at the facility's PUE.
    double facilityUsdPerKwMonth = 0.0;
    std::string facilitySource;
    double pue = 1.0;
    std::string pueSource;
    double electricityUsdPerKwh = 0.0;
    std::string electricitySource;
    // A rented cluster instead: USD per GPU-hour, all-in; 0 prices the owned cluster above.
    double rentalUsdPerGpuHour = 0.0;
    std::string rentalSource;

    bool operator==(const EconomicsAssumptions&) const = default;
};

} // namespace archipelago::core
