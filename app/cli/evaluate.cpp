// archipelago-cli evaluate SCENARIO.json [--json]: the Evaluation as a table or as one JSON
// object (ARCHITECTURE.md section 6). Several files: one object each, in a JSON array.
#include "cli.h"

#include "evaluation/costmodel.h"
#include "io/scenarioio.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <ostream>

namespace archipelago::cli {

namespace {

using nlohmann::json;

json breakdownJson(const core::Breakdown& b)
{
    return {{"forward_s", b.forwardS},          {"backward_s", b.backwardS},
            {"recompute_s", b.recomputeS},      {"tp_comm_s", b.tpCommS},
            {"cp_comm_s", b.cpCommS},           {"ep_comm_s", b.epCommS},
            {"pp_comm_s", b.ppCommS},           {"dp_comm_s", b.dpCommS},
            {"optimizer_s", b.optimizerS},      {"bubble_s", b.bubbleS},
            {"interference_s", b.interferenceS}};
}

json evaluationJson(const std::string& file, const core::Evaluation& ev)
{
    json bom = json::array();
    for (const core::BomItem& item : ev.bom)
        bom.push_back({{"item", item.item},
                       {"category", item.category},
                       {"scope", item.scope},
                       {"count", item.count},
                       {"unit_price_usd", item.unitPriceUsd},
                       {"unit_watts", item.unitWatts},
                       {"capex_usd", item.capexUsd()},
                       {"power_w", item.powerW()}});
    json traffic = json::array();
    for (const core::LinkTraffic& t : ev.traffic) {
        json j{{"link_class", core::toString(t.linkClass)},
               {"bytes_per_iteration", t.bytesPerIteration},
               {"busy_s", t.busyS},
               {"utilisation", t.utilisation}};
        if (t.dciLinkId >= 0)
            j["dci_link"] = t.dciLinkId;
        traffic.push_back(std::move(j));
    }
    json warnings = json::array();
    for (const core::Warning& w : ev.warnings)
        warnings.push_back(w.message);
    const core::MemoryBreakdown& m = ev.memory;
    return {{"file", file},
            {"ok", ev.ok},
            {"iteration_time_s", ev.iterationTimeS},
            {"bubble_ratio", ev.bubbleRatio},
            {"idle_over_compute", ev.idleOverCompute},
            {"mfu", ev.mfu},
            {"hfu", ev.hfu},
            {"tokens_per_s", ev.tokensPerS},
            {"model_flops_per_iteration", ev.modelFlopsPerIteration},
            {"hardware_flops_per_iteration", ev.hardwareFlopsPerIteration},
            {"memory_peak_gib", ev.memoryPeakGib},
            {"fits_in_memory", ev.fitsInMemory},
            {"hbm_gib", ev.hbmGib},
            {"memory",
             {{"weights_gib", m.weightsGib},
              {"gradients_gib", m.gradientsGib},
              {"optimizer_gib", m.optimizerGib},
              {"activations_gib", m.activationsGib},
              {"other_gib", m.otherGib},
              {"in_flight_micro_batches", m.inFlightMicroBatches},
              {"worst_stage", m.worstStage}}},
            {"network_capex_usd", ev.networkCapexUsd},
            {"network_power_w", ev.networkPowerW},
            {"breakdown", breakdownJson(ev.breakdown)},
            {"bom", bom},
            {"traffic", traffic},
            {"time_to_train_s", ev.timeToTrainS},
            {"gpu_hours", ev.gpuHoursToTrain},
            {"gpus", ev.gpus},
            {"warnings", warnings},
            {"assumptions", ev.assumptions}};
}

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
    out << file << '\n';
    if (!ev.ok) {
        for (const core::Warning& w : ev.warnings)
            out << "  error: " << w.message << '\n';
        return;
    }
    row("iteration time", num("%.4g s", ev.iterationTimeS));
    const core::Breakdown& b = ev.breakdown;
    const std::pair<const char*, double> parts[] = {
        {"  forward", b.forwardS},          {"  backward", b.backwardS},
        {"  recompute", b.recomputeS},      {"  TP communication", b.tpCommS},
        {"  CP communication", b.cpCommS},  {"  EP communication", b.epCommS},
        {"  PP communication", b.ppCommS},  {"  DP communication", b.dpCommS},
        {"  optimizer", b.optimizerS},      {"  bubble", b.bubbleS},
        {"  interference", b.interferenceS}};
    for (const auto& [label, v] : parts)
        row(label, num("%.4g s", v));
    row("bubble ratio", num("%.1f %%", 100.0 * ev.bubbleRatio));
    row("idle over compute", num("%.1f %%", 100.0 * ev.idleOverCompute));
    row("MFU", num("%.1f %%", 100.0 * ev.mfu));
    row("HFU", num("%.1f %%", 100.0 * ev.hfu));
    row("tokens/s", num("%.4g", ev.tokensPerS));
    row("memory peak", num("%.1f GiB", ev.memoryPeakGib) + num(" of %.0f GiB", ev.hbmGib) +
                           (ev.fitsInMemory ? "" : "  OUT OF MEMORY"));
    row("time to train", num("%.3g days", ev.timeToTrainS / 86400.0));
    row("GPU-hours to train", num("%.4g", ev.gpuHoursToTrain));
    row("network capex", num("%.4g USD", ev.networkCapexUsd));
    row("network power", num("%.4g W", ev.networkPowerW));
    for (const core::LinkTraffic& t : ev.traffic)
        row(std::string("traffic ") + core::toString(t.linkClass) +
                (t.dciLinkId >= 0 ? " " + std::to_string(t.dciLinkId) : ""),
            num("%.4g GB/iteration", t.bytesPerIteration / 1e9) +
                num(", %.0f %% busy", 100.0 * t.utilisation));
    for (const core::Warning& w : ev.warnings)
        out << "  warning: " << w.message << '\n';
}

} // namespace

int runEvaluate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    static const char* kUsage = "Usage: archipelago-cli evaluate SCENARIO.json [--json]\n";
    bool asJson = false;
    std::vector<std::string> files;
    for (const std::string& a : args) {
        if (a == "--json")
            asJson = true;
        else if (a == "-h" || a == "--help") {
            out << kUsage;
            return kExitOk;
        } else if (!a.empty() && a[0] == '-') {
            err << "archipelago-cli evaluate: unknown option '" << a << "'\n" << kUsage;
            return kExitUsage;
        } else
            files.push_back(a);
    }
    if (files.empty()) {
        err << kUsage;
        return kExitUsage;
    }
    int status = kExitOk;
    json all = json::array();
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
                err << file << ": " << w.message << '\n';
            status = kExitInvalidInput;
        }
        if (asJson)
            all.push_back(evaluationJson(file, ev));
        else
            printTable(file, ev, out);
    }
    if (asJson && !all.empty())
        out << (all.size() == 1 ? all.front() : all).dump(2) << '\n';
    return status;
}

} // namespace archipelago::cli
