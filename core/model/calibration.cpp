#include "model/calibration.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace archipelago::core {

namespace {

// Physical ranges: an efficiency is a fraction of a peak; an interference is seconds of compute
// lost per second of traffic hidden under it, at most one (no worse than not overlapping); the
// half dimension is a GEMM size in elements (model/catalog.h).
constexpr std::array kParameters = {
    CalibrationParameter{"gemm_peak", &EfficiencyParams::gemmPeakEfficiency, 0.40, 1.00, 0.02,
                         "achievable fraction of tensor-core peak for large GEMMs"},
    CalibrationParameter{"gemm_half_dim", &EfficiencyParams::gemmHalfDim, 0.0, 256.0, 8.0,
                         "GEMM dimension at which a tile reaches half of gemm_peak"},
    CalibrationParameter{"memory_bound", &EfficiencyParams::memoryBoundEfficiency, 0.40, 0.95, 0.03,
                         "achieved fraction of HBM bandwidth for element-wise kernels"},
    CalibrationParameter{"comm_interference", &EfficiencyParams::commInterference, 0.0, 1.0, 0.05,
                         "compute slowdown per second of TP/CP traffic hidden under it"},
    CalibrationParameter{"dp_comm_interference", &EfficiencyParams::dpCommInterference, 0.0, 1.0,
                         0.05, "compute slowdown per second of gradient reduction hidden"},
    CalibrationParameter{"ep_comm_interference", &EfficiencyParams::epCommInterference, 0.0, 1.0,
                         0.05, "compute slowdown per second of expert all-to-all hidden"},
};

std::string percent(double fraction)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f%%", 100.0 * fraction);
    return buffer;
}

} // namespace

std::span<const CalibrationParameter> calibrationParameters()
{
    return kParameters;
}

const CalibrationParameter* findCalibrationParameter(const std::string& name)
{
    const auto it = std::find_if(kParameters.begin(), kParameters.end(),
                                 [&](const CalibrationParameter& p) { return name == p.name; });
    return it == kParameters.end() ? nullptr : &*it;
}

EfficiencyParams calibrated(EfficiencyParams efficiency, const Calibration& calibration)
{
    for (const auto& [name, value] : calibration.fitted)
        if (const CalibrationParameter* p = findCalibrationParameter(name))
            efficiency.*p->member = value;
    return efficiency;
}

std::string calibrationSummary(const Calibration& calibration)
{
    std::string names;
    for (const auto& entry : calibration.fitted)
        names += (names.empty() ? "" : ", ") + entry.first;
    return calibration.accelerator + " calibrated on " + std::to_string(calibration.runs) +
           (calibration.runs == 1 ? " run" : " runs") + " (" + names + "), leave-one-out error " +
           percent(calibration.leaveOneOutMeanError) + " (largest " +
           percent(calibration.leaveOneOutMaxError) + ", in-sample " +
           percent(calibration.inSampleMeanError) + ")";
}

} // namespace archipelago::core
