// A calibration of one accelerator's efficiency parameters on a user's measured runs
// (validation/calibration.h fits it; docs/calibration.md). A scenario names the file; the
// effective catalog (io/scenarioio.h) applies the fitted values over that accelerator's.
#pragma once

#include "model/catalog.h"

#include <span>
#include <string>
#include <utility>
#include <vector>

namespace archipelago::core {

// An efficiency parameter a calibration may fit, with its physical range and the coarse step of
// the search (model/catalog.h gives each parameter's meaning and source).
struct CalibrationParameter
{
    const char* name; // as in catalog JSON and the calibration file
    double EfficiencyParams::*member;
    double lo;
    double hi;
    double step;
    const char* meaning;
};

// The parameters a calibration may fit, in a fixed order.
std::span<const CalibrationParameter> calibrationParameters();
const CalibrationParameter* findCalibrationParameter(const std::string& name);

struct Calibration
{
    std::string file;        // as the scenario names it: relative to the scenario's folder
    std::string accelerator; // the catalog accelerator whose parameters it replaces
    // The fitted parameters and their values, in calibrationParameters() order; the others keep
    // the catalog's values.
    std::vector<std::pair<std::string, double>> fitted;
    int runs = 0; // measured runs fitted on
    // Absolute relative iteration-time errors over those runs: in-sample (fitted on all runs)
    // and leave-one-out (each run predicted by a fit on the others).
    double inSampleMeanError = 0.0;
    double inSampleMaxError = 0.0;
    double leaveOneOutMeanError = 0.0;
    double leaveOneOutMaxError = 0.0;

    bool operator==(const Calibration&) const = default;
};

// `efficiency` with the calibration's fitted values.
EfficiencyParams calibrated(EfficiencyParams efficiency, const Calibration& calibration);
// "calibrated on 4 runs (gemm_peak, memory_bound), leave-one-out error 2.1% (in-sample 0.9%)"
std::string calibrationSummary(const Calibration& calibration);

} // namespace archipelago::core
