// archipelago-cli evaluate SCENARIO.json [--json | --csv]: the Evaluation as a table, as one
// JSON object (ARCHITECTURE.md section 6) or as CSV (io/evaluationcsv.h). Several files: one
// object each, in a JSON array; one CSV row each under one header.
#include "cli.h"

#include "evaluation/costmodel.h"
#include "io/evaluationcsv.h"
#include "io/evaluationjson.h"
#include "io/scenarioio.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace archipelago::cli {

namespace {

std::string num(const char* format, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

void printTable(const std::string& file, const core::Evaluation& ev, std::ostream& out)
{
    auto row = [&](const std::string& label, const std::string& value) {
        std::string l = label;
        l.resize(std::max<std::size_t>(l.size(), 28), ' ');
        out << "  " << l << value << '\n';
    };
    out << core::displayText(file) << '\n';
    if (!ev.ok) {
        for (const core::Warning& w : ev.warnings)
            out << "  error: " << core::displayText(core::warningText(w)) << '\n';
        return;
    }
    row("iteration time", num("%.4g s", ev.iterationTimeS));
    const core::Breakdown& b = ev.breakdown;
    const std::pair<const char*, double> parts[] = {{"  forward", b.forwardS},
                                                    {"  backward", b.backwardS},
                                                    {"  recompute", b.recomputeS},
                                                    {"  TP communication", b.tpCommS},
                                                    {"  CP communication", b.cpCommS},
                                                    {"  EP communication", b.epCommS},
                                                    {"  PP communication", b.ppCommS},
                                                    {"  DP communication", b.dpCommS},
                                                    {"  optimizer", b.optimizerS},
                                                    {"  bubble", b.bubbleS},
                                                    {"  interference", b.interferenceS},
                                                    {"  variability", b.variabilityS},
                                                    {"  per-iteration overhead", b.overheadS}};
    for (const auto& [label, v] : parts)
        row(label, num("%.4g s", v));
    row("bubble ratio", num("%.1f %%", 100.0 * ev.bubbleRatio));
    row("idle over compute", num("%.1f %%", 100.0 * ev.idleOverCompute));
    row("MFU", num("%.1f %%", 100.0 * ev.mfu));
    row("HFU", num("%.1f %%", 100.0 * ev.hfu));
    row("tokens/s", num("%.4g", ev.tokensPerS));
    row("memory peak", num("%.1f GiB", ev.memoryPeakGib) + num(" of %.4g GiB", ev.hbmGib) +
                           (ev.fitsInMemory ? "" : "  OUT OF MEMORY"));
    row("time to train", num("%.3g days", ev.timeToTrainS / 86400.0));
    row("GPU-hours to train", num("%.4g", ev.gpuHoursToTrain));
    const core::Goodput& g = ev.goodput;
    row("interruptions", num("%.3g per day", g.interruptionsPerDay) +
                             num(", restart %.0f s", g.restartS) +
                             (std::isfinite(g.checkpointIntervalS)
                                  ? num(", checkpoint every %.3g min", g.checkpointIntervalS / 60.0)
                                  : std::string()));
    row("interruptions by domain",
        num("servers %.3g", g.serverInterruptionsPerDay) +
            num(", fabric %.3g", g.fabricInterruptionsPerDay) +
            num(", DCI %.3g", g.dciInterruptionsPerDay) +
            num(", buildings %.3g per day", g.buildingInterruptionsPerDay) +
            (g.degradedS > 0.0 ? num("; degraded %.3g h", g.degradedS / 3600.0) : std::string()));
    const core::DatacenterSyncResult& sync = ev.datacenterSync;
    if (sync.scheme != core::DatacenterSync::Synchronous)
        row("datacenter sync",
            std::string(core::toString(sync.scheme)) + num(", %.0f replicas", sync.replicas) +
                num(", H %.0f", sync.innerSteps) + num(", outer step %.3g s", sync.outerStepS) +
                num(" (%.3g s a step exposed)", sync.outerExposedS) +
                num(", loss x%.4f", sync.lossRatio) +
                num(", %.3g x the steps", sync.computeMultiplier));
    row("effective training time", num("%.1f %%", 100.0 * g.ettr));
    row("effective time to train", num("%.3g days", g.effectiveTimeToTrainS / 86400.0));
    row("effective GPU-hours", num("%.4g", g.effectiveGpuHours));
    const core::RunCost& c = ev.runCost;
    if (c.priced && c.rented)
        row("run cost", num("%.4g USD", c.effectiveRunCostUsd) +
                            num(" (rented at %.3g USD per GPU-hour)", c.usdPerGpuHour));
    else if (c.priced)
        row("run cost", num("%.4g USD", c.effectiveRunCostUsd) +
                            num(" (%.4g USD per hour", c.usdPerHour) +
                            num(", %.3g per GPU-hour: ", c.usdPerGpuHour) +
                            num("hardware %.4g", c.ownershipUsdPerHour) +
                            num(", colocation %.4g", c.facilityUsdPerHour) +
                            num(", energy %.4g", c.energyUsdPerHour) +
                            num(" for %.4g MW of IT load)", c.itPowerW / 1e6));
    if (ev.calibration)
        row("calibration",
            core::calibrationSummary(*ev.calibration) + " (" + ev.calibration->file + ")");
    row("network capex", num("%.4g USD", ev.networkCapexUsd));
    row("network power", num("%.4g W", ev.networkPowerW));
    for (const core::LinkTraffic& t : ev.traffic)
        row(std::string("traffic ") + core::toString(t.linkClass) +
                (t.dciLinkId >= 0 ? " " + std::to_string(t.dciLinkId) : ""),
            num("%.4g GB/iteration", t.bytesPerIteration / 1e9) +
                (t.dciLinkId >= 0 ? num(" (a->b %.4g GB", t.bytesAToB / 1e9) +
                                        num(", b->a %.4g GB)", t.bytesBToA / 1e9)
                                  : std::string()) +
                num(", %.0f %% busy", 100.0 * t.utilisation) +
                (t.dciLinkId >= 0 ? std::string(" in the busier direction") : std::string()));
    for (const core::Warning& w : ev.warnings)
        out << "  warning: " << core::displayText(core::warningText(w)) << '\n';
}

} // namespace

int runEvaluate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    static const char* kUsage =
        "Usage: archipelago-cli evaluate SCENARIO.json... [--json | --csv]\n";
    bool asJson = false;
    bool asCsv = false;
    bool optionsEnded = false;
    std::vector<std::string> files;
    for (const std::string& a : args) {
        if (!optionsEnded && a == "--json") {
            asJson = true;
        } else if (!optionsEnded && a == "--csv") {
            asCsv = true;
        } else if (!optionsEnded && (a == "-h" || a == "--help")) {
            out << kUsage;
            return kExitOk;
        } else if (!optionsEnded && a == "--") {
            optionsEnded = true;
        } else if (!optionsEnded && a.starts_with("-")) {
            err << "archipelago-cli evaluate: unknown option '" << core::displayText(a) << "'\n"
                << kUsage;
            return kExitUsage;
        } else {
            files.push_back(a);
        }
    }
    if (asJson && asCsv) {
        err << "archipelago-cli evaluate: --json and --csv exclude each other\n" << kUsage;
        return kExitUsage;
    }
    if (files.empty()) {
        err << kUsage;
        return kExitUsage;
    }
    int status = kExitOk;
    nlohmann::json all = nlohmann::json::array();
    for (const std::string& file : files) {
        const core::LoadResult load = core::loadScenarioFile(file);
        if (!load.ok()) {
            for (const core::Diagnostic& d : load.errors)
                err << d.toString() << '\n';
            status = kExitInvalidInput;
            continue;
        }
        const core::Evaluation ev = core::evaluate(*load.scenario);
        if (!ev.ok) {
            for (const core::Warning& w : ev.warnings)
                err << core::Diagnostic{core::Diagnostic::Severity::Error,
                                        file,
                                        {},
                                        core::warningText(w)}
                           .toString()
                    << '\n';
            status = kExitInvalidInput;
        }
        if (asJson || asCsv)
            all.push_back(core::evaluationToJson(file, ev));
        else
            printTable(file, ev, out);
    }
    // The file name is the user's bytes, which need not be UTF-8: replaced, never thrown on.
    // Every file that loaded has a row, the failed evaluations too (ok false, figures empty).
    if (asCsv && !all.empty())
        out << core::evaluationsToCsv(all);
    if (asJson && !all.empty())
        out << (all.size() == 1 ? all.front() : all)
                   .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
            << '\n';
    return status;
}

} // namespace archipelago::cli
