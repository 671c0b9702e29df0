// archipelago-cli calibrate RUNS.json... [--accelerator NAME] [--fit NAME,...] -o OUT.json: one
// accelerator's efficiency parameters fitted on measured runs (validation/calibration.h), with
// the leave-one-out error beside the in-sample one; a scenario then names OUT.json in its
// "calibration" key (docs/calibration.md).
#include "cli.h"

#include "io/calibrationio.h"
#include "io/textfile.h"
#include "validation/calibration.h"
#include "validation/publishedruns.h"

#include <ostream>
#include <set>
#include <sstream>

namespace archipelago::cli {

namespace {

const char* kCalibrateUsage = "Usage: archipelago-cli calibrate RUNS.json... [--accelerator NAME] "
                              "[--fit NAME,...] -o CALIBRATION.json\n";

} // namespace

int runCalibrate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::vector<std::string> files;
    std::string output;
    std::string accelerator;
    core::CalibrationOptions options;
    std::set<std::string> given;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-h" || a == "--help") {
            out << kCalibrateUsage
                << "Fits the efficiency parameters of one accelerator (--fit: gemm_peak,\n"
                   "gemm_half_dim, memory_bound, comm_interference, dp_comm_interference,\n"
                   "ep_comm_interference; default gemm_peak and memory_bound) on measured runs in\n"
                   "the runs format of ../shared/validation, and prints each run's error with the\n"
                   "catalog's parameters, the fitted ones, and a fit on the other runs\n"
                   "(leave-one-out). Refuses more parameters than the runs identify. A scenario\n"
                   "names the output in its \"calibration\" key.\n";
            return kExitOk;
        }
        if (a == "-o" || a == "--fit" || a == "--accelerator") {
            const std::optional<std::string> taken =
                optionValue(args, i, given, "calibrate", kCalibrateUsage, err);
            if (!taken)
                return kExitUsage;
            const std::string& value = *taken;
            if (a == "-o") {
                output = value;
            } else if (a == "--accelerator") {
                accelerator = value;
            } else {
                std::stringstream list(value);
                std::string item;
                while (std::getline(list, item, ','))
                    if (!item.empty())
                        options.fit.push_back(item);
            }
            continue;
        }
        if (a.starts_with("-")) {
            err << "archipelago-cli calibrate: unknown option '" << core::displayText(a) << "'\n"
                << kCalibrateUsage;
            return kExitUsage;
        }
        files.push_back(a);
    }
    if (files.empty() || output.empty()) {
        err << "archipelago-cli calibrate: "
            << (files.empty() ? "no runs file given" : "no -o CALIBRATION.json") << '\n'
            << kCalibrateUsage;
        return kExitUsage;
    }
    std::vector<core::PublishedRun> runs;
    bool bad = false;
    for (const std::string& file : files) {
        core::PublishedRunsLoad load = core::loadPublishedRuns(file);
        for (const core::Diagnostic& d : load.errors)
            err << d.toString() << '\n';
        for (const core::Diagnostic& d : load.warnings)
            err << d.toString() << '\n';
        bad = bad || !load.ok();
        for (core::PublishedRun& r : load.runs)
            runs.push_back(std::move(r));
    }
    if (bad)
        return kExitInvalidInput;
    const core::CalibrationOutcome outcome =
        core::calibrate(runs, core::builtinCatalog(), accelerator, options);
    for (const std::string& note : outcome.notes)
        err << "note: " << core::displayText(note) << '\n';
    if (!outcome.ok()) {
        for (const std::string& e : outcome.errors)
            err << "archipelago-cli calibrate: " << core::displayText(e) << '\n';
        return kExitInvalidInput;
    }
    out << core::calibrationReport(outcome);
    std::string command = "archipelago-cli calibrate";
    for (const std::string& a : args)
        command += " " + a;
    const std::string text = core::serializeCalibration(outcome.calibration, outcome.rows, command);
    std::string error;
    if (!core::writeTextFileAtomically(output, text, error)) {
        err << "archipelago-cli calibrate: " << core::displayText(output) << ": " << error << '\n';
        return kExitInvalidInput;
    }
    err << core::displayText(output) << ": "
        << core::displayText(core::calibrationSummary(outcome.calibration)) << '\n';
    return kExitOk;
}

} // namespace archipelago::cli
