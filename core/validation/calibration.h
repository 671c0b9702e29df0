// Calibration of one accelerator's efficiency parameters on measured runs (the runs format of
// ../shared/validation): `archipelago-cli calibrate`, "Calibrate from measured runs…" in the
// window, and the test that the built-in calibration is no better on runs it was not fitted on
// (docs/calibration.md). One set of parameters for all runs, never a per-run term; each
// parameter has a physical meaning and range (model/calibration.h).
#pragma once

#include "io/calibrationio.h"
#include "model/calibration.h"
#include "model/catalog.h"
#include "model/scenario.h"
#include "validation/publishedruns.h"

#include <functional>
#include <string>
#include <vector>

namespace archipelago::core {

// A measured run as the model evaluates it: converted once (the unpublished knobs chosen with
// the catalog's parameters, validation/runvalidation.cpp); each candidate then sets the same
// parameters on every run.
struct CalibrationCase
{
    std::string id;
    std::string accelerator; // the catalog accelerator whose parameters are fitted
    Scenario scenario;
    double measuredS = 0.0;
};

// The runs of `accelerator` ("" : the one accelerator all runs name) as cases. A run the model
// cannot evaluate with the catalog's parameters (it does not fit in memory in any admissible
// setting) is left out with a note, as is a run of another accelerator; `error` is set when no
// accelerator can be chosen or the catalog does not know it.
std::vector<CalibrationCase> calibrationCases(const std::vector<PublishedRun>& runs,
                                              const Catalog& catalog, std::string& accelerator,
                                              std::vector<std::string>& notes, std::string& error);

// Signed relative errors (predicted / measured - 1) of `cases` with `efficiency`; a case the
// model cannot evaluate gets +1000 (no candidate that loses a run can win).
std::vector<double> calibrationErrors(const std::vector<CalibrationCase>& cases,
                                      const EfficiencyParams& efficiency,
                                      std::vector<double>* predictedS = nullptr);

struct CalibrationOptions
{
    // Parameter names to fit (model/calibration.h); empty: gemm_peak and memory_bound, as many
    // as the runs identify.
    std::vector<std::string> fit;
    // Called with the fraction done; returning false cancels (the outcome then has an error).
    std::function<bool(double)> progress;
};

struct CalibrationOutcome
{
    // Why nothing was fitted (too few runs, a parameter the runs do not identify, ...).
    std::vector<std::string> errors;
    std::vector<std::string> notes; // runs left out, the default parameters chosen
    Calibration calibration;        // `file` empty; set when errors is empty
    std::vector<CalibrationRunRow> rows;
    // The catalog's parameters on the same runs, for comparison.
    double catalogMeanError = 0.0;
    double catalogMaxError = 0.0;
    bool ok() const { return errors.empty(); }
};

// The fit: for each fitted parameter in turn a grid over its physical range, then the grid
// refined around the best point, until no parameter moves (coordinate descent). Objective: the
// lowest mean absolute error among candidates whose largest error is within 10%
// (test_validation's bound); within 0.05 points of it, the lowest largest error. Leave-one-out:
// each run is predicted by the same fit on the others, started from the full fit's point.
// Refused: more parameters than runs, a parameter no run's prediction moves with across its
// range, and one that moves every prediction in proportion to an earlier one (the default set
// leaves such a parameter out with a note instead).
CalibrationOutcome calibrate(const std::vector<CalibrationCase>& cases,
                             const EfficiencyParams& start, const std::string& accelerator,
                             const CalibrationOptions& options);
// The outcome as text: one line per run (measured; predicted with the catalog's parameters,
// the fitted ones and a fit on the other runs, each with its error), the mean and largest
// errors of each, and the fitted values.
std::string calibrationReport(const CalibrationOutcome& outcome);
// The same from runs, with the catalog's parameters of the chosen accelerator as the start.
CalibrationOutcome calibrate(const std::vector<PublishedRun>& runs, const Catalog& catalog,
                             const std::string& accelerator, const CalibrationOptions& options);

} // namespace archipelago::core
