// Numbers with their units, for every view, the status bar and the report: one place for units
// and separators, so the same quantity reads the same everywhere ("16,384 GPUs", "1.23 s",
// "$12.4 M", "25.6 Tb/s", "10 km"). Names and descriptions of scenario objects are
// scenariotext.h.
#pragma once

#include <QString>

#include <cstdint>

namespace archipelago::views {

QString formatCount(std::int64_t n);                  // 16384 -> "16,384"
QString formatGpus(std::int64_t n);                   // "16,384 GPUs" (1 -> "1 GPU")
QString formatNumber(double value, int decimals = 2); // "1,234.57"; "—" when not finite
// A figure shown as a whole count ("1,234,568"); "—" when not finite or beyond int64, where
// casting it would be undefined behaviour (it once showed -9,223,372,036,854,775,808 GPU-hours).
QString formatWholeNumber(double value);
QString formatSeconds(double seconds);  // "1.23 s", "456 ms", "12.3 µs", "3.4 d"
QString formatTimeSpan(double seconds); // long spans: "54.2 days", "3.1 h"
// GPU-hours with three significant figures below 1,000 ("0.116", "4.65", "465") and grouped
// whole numbers above ("41,272"): a short run never reads "0 GPU-hours".
QString formatGpuHours(double hours);
QString formatPercent(double fraction, int decimals = 1); // 0.412 -> "41.2 %"
QString formatUsd(double usd);                            // "$1.23 M", "$850 k"
QString formatPower(double watts);                        // "1.23 MW", "850 kW"
QString formatGib(double gib);                            // "61.3 GiB"
QString formatGbps(double gbps);                          // "400 Gb/s", "25.6 Tb/s"
QString formatLinkRate(double gbps); // one wavelength or port: 400 -> "400G", 1600 -> "1.6T"
QString formatKm(double km);         // "10 km", "1,000 km"

// The bubble ratio, one definition and one name for every view (ARCHITECTURE.md: "pipeline
// idle time over pipeline makespan, averaged over stages"), core::Evaluation::bubbleRatio.
QString bubbleRatioName();                  // "Bubble ratio"
QString bubbleRatioToolTip();               // the formula, for tooltips
QString formatBubbleRatio(double fraction); // "35.2 %"
// core::Evaluation::idleOverCompute, named for what it is (not Megatron's closed form).
QString idleOverComputeName();    // "Idle ÷ compute (simulated)"
QString idleOverComputeToolTip(); // why it is not (p−1)/m in general

} // namespace archipelago::views
