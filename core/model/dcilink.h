// What a DCI link is, physically: one-way latency from its fibre length plus equipment, and
// capacity from wavelengths x line rate. The transport that runs over it (RDMA, TCP) and what one
// flow gets is network/dcimodel.h.
#pragma once

#include "model/scenario.h"

namespace archipelago::core {

// Light in standard single-mode fibre travels at c / n with n ~ 1.468 (ITU-T G.652 group
// index): 299,792.458 km/s / 1.468 = 204,218 km/s, i.e. ~4.9 us per km ("5 us/km" rule).
inline constexpr double kFibreGroupIndex = 1.468;
inline constexpr double kSpeedOfLightKmPerS = 299'792.458;

// One-way propagation delay of `distanceKm` of fibre.
double fibreLatencyS(double distanceKm);
// One-way latency of a DCI link: propagation + equipment (transponders, ROADMs, switches).
double dciOneWayLatencyS(const DciLink& link);
// Capacity per direction in GB/s: wavelengths x Gb/s per wavelength / 8.
double dciCapacityGBps(const DciLink& link);
// The same in Gb/s (line rate, as links are sold and labelled).
double dciCapacityGbps(const DciLink& link);

} // namespace archipelago::core
