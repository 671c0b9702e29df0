// Number and label formatting shared by the topology canvas and the layout view:
// "16,384 GPUs", "64 × 400G = 25.6 Tb/s", "10 km".
#pragma once

#include "model/scenario.h"

#include <QColor>
#include <QString>

#include <cstdint>

namespace archipelago::views {

QString formatCount(std::int64_t n);                   // 16384 -> "16,384"
QString formatGpus(std::int64_t n);                    // "16,384 GPUs" (1 -> "1 GPU")
QString formatPodShape(const core::Pod& pod);          // "16 × 128 × 8-GPU domains"
QString formatLinkRate(double gbps);                   // 400 -> "400G", 1600 -> "1.6T"
QString formatBandwidth(double gbps);                  // 25600 -> "25.6 Tb/s", 800 -> "800 Gb/s"
QString formatLinkCapacity(const core::DciLink& link); // "64 × 400G = 25.6 Tb/s"
QString formatDistance(double km);                     // "10 km", "1,200 km", "0.5 km"
QString formatFabric(const core::Fabric& fabric);      // "rail-optimized · 3-tier · 2:1"
QString formatDuration(double seconds);                // "812 ms", "3.4 s", "45 µs"

double linkCapacityGbps(const core::DciLink& link);

// Colour and pen width of a DCI link by capacity, on a log scale from 1 Tb/s (warm: likely the
// bottleneck) to 100 Tb/s (cool). Mid lightness so that it reads on light and dark palettes.
QColor linkCapacityColor(double gbps);
double linkCapacityWidth(double gbps);

// `a` blended towards `b` by t in [0, 1].
QColor mixColors(const QColor& a, const QColor& b, double t);

} // namespace archipelago::views
