#include "model/dcilink.h"

#include <algorithm>

namespace archipelago::core {

double fibreLatencyS(double distanceKm)
{
    // t = d * n / c (group index n of G.652 fibre), ~4.9 us/km.
    return std::max(0.0, distanceKm) * kFibreGroupIndex / kSpeedOfLightKmPerS;
}

double dciOneWayLatencyS(const DciLink& link)
{
    return fibreLatencyS(link.distanceKm) + std::max(0.0, link.equipmentLatencyS);
}

double dciCapacityGbps(const DciLink& link)
{
    return std::max(0, link.wavelengths) * std::max(0.0, link.gbpsPerWavelength);
}

double dciCapacityGBps(const DciLink& link)
{
    // Capacity = wavelengths x line rate (Gb/s), / 8 for bytes.
    return std::max(0, link.wavelengths) * std::max(0.0, link.gbpsPerWavelength) / 8.0;
}

} // namespace archipelago::core
