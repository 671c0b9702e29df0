// Pass 9: every figure of the Evaluation is a finite number. Extreme inputs (a bandwidth near
// zero, a price near DBL_MAX) make IEEE arithmetic overflow to inf or give NaN; JSON then shows
// null and a view casting the figure to an integer shows garbage. Such a result is an error
// naming the figure and the inputs that drive it, never a result.
#include "evaluation/passes.h"
#include "model/checkedmath.h"

#include <cmath>
#include <cstdio>
#include <iterator>
#include <optional>
#include <string>

namespace archipelago::core {

namespace {

std::string num(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

struct Figure
{
    const char* name;
    double value;
    const char* drivenBy;
};

// Bandwidth and compute figures every time figure comes from, in the catalog's words.
constexpr const char* kCompute = "the accelerator's peak_tflops_bf16 and hbm_GBps";
constexpr const char* kScaleUp =
    "the accelerator's scale_up_GBps_per_direction and nic_Gbps, and the fabric's switches";
constexpr const char* kScaleOut = "nic_Gbps, the fabric's switches (port_Gbps) and the DCI links "
                                  "(Gbps_per_wavelength, wavelengths)";

std::optional<std::string> firstNonFinite(const EvaluationContext& ctx)
{
    const Evaluation& ev = ctx.ev;
    const Breakdown& b = ev.breakdown;
    const auto accel = [&]() -> std::string {
        return ctx.accel.empty() || !ctx.accel.front() ? "" : " (" + ctx.accel.front()->name + ")";
    };
    const Figure times[] = {
        {"forward time", b.forwardS, kCompute},
        {"backward time", b.backwardS, kCompute},
        {"recompute time", b.recomputeS, kCompute},
        {"optimizer time", b.optimizerS, kCompute},
        {"TP communication time", b.tpCommS, kScaleUp},
        {"CP communication time", b.cpCommS, kScaleUp},
        {"EP communication time", b.epCommS, kScaleUp},
        {"PP communication time", b.ppCommS, kScaleOut},
        {"DP communication time", b.dpCommS, kScaleOut},
        {"interference time", b.interferenceS, kScaleOut},
        {"variability time", b.variabilityS, kCompute},
        {"per-iteration overhead", b.overheadS, kScaleOut},
        {"bubble time", b.bubbleS, kScaleOut},
        {"iteration time", ev.iterationTimeS, kScaleOut},
        {"memory peak", ev.memoryPeakGib, "the model's size and micro-batch"},
    };
    for (const Figure& f : times)
        if (!std::isfinite(f.value))
            return std::string(f.name) + " is " + num(f.value) + ": check " + f.drivenBy + accel();
    // The figures views show as whole numbers must also fit an integer. Past here every time
    // is finite: name the largest part of the iteration, whose inputs are the likely cause.
    const Figure* largest = &times[0];
    for (const Figure& f : times)
        if (f.value > largest->value && &f != &times[std::size(times) - 1] &&
            &f != &times[std::size(times) - 2])
            largest = &f;
    // Built only for an error (formatting numbers is most of this pass's time otherwise).
    const auto perIteration = [&] {
        return " (iteration time " + num(ev.iterationTimeS) + " s, " + num(largest->value) +
               " s of it " + largest->name + ": check " + largest->drivenBy + accel() + ")";
    };
    const Figure rates[] = {
        {"tokens/s", ev.tokensPerS, "the iteration time"},
        {"MFU", ev.mfu, "the iteration time"},
        {"HFU", ev.hfu, "the iteration time"},
        {"time to train", ev.timeToTrainS, "workload.train_tokens and the iteration time"},
        {"GPU-hours to train", ev.gpuHoursToTrain, "workload.train_tokens and the iteration time"},
        {"effective time to train", ev.goodput.effectiveTimeToTrainS,
         "the failure rates, checkpoint and restart assumptions (model/reliability.cpp)"},
    };
    for (const Figure& f : rates)
        if (!std::isfinite(f.value) || !fitsInteger<std::int64_t>(f.value))
            return std::string(f.name) + " is " + num(f.value) + ": check " + f.drivenBy +
                   perIteration();
    for (const LinkTraffic& t : ev.traffic)
        if (!std::isfinite(t.bytesPerIteration) || !std::isfinite(t.busyS) ||
            !std::isfinite(t.utilisation))
            return std::string("traffic on ") + toString(t.linkClass) + " links is not finite (" +
                   num(t.busyS) + " s busy): check " + kScaleOut;
    for (const BomItem& i : ev.bom)
        if (!std::isfinite(i.capexUsd()) || !std::isfinite(i.powerW()))
            return "network " + std::string(std::isfinite(i.capexUsd()) ? "power" : "capex") +
                   " is not finite: " + std::to_string(i.count) + " x " + i.item + " (" + i.scope +
                   ") at " + num(i.unitPriceUsd) + " USD and " + num(i.unitWatts) +
                   " W each; check its price_usd and watts in the catalog";
    if (!std::isfinite(ev.networkCapexUsd) || !std::isfinite(ev.networkPowerW))
        return "network capex " + num(ev.networkCapexUsd) + " USD or power " +
               num(ev.networkPowerW) +
               " W is not finite: the bill of materials sums past the largest number; check "
               "price_usd and watts in the catalog";
    if (!std::isfinite(ev.runCost.effectiveRunCostUsd) ||
        !fitsInteger<std::int64_t>(ev.runCost.effectiveRunCostUsd))
        return "the run's cost is " + num(ev.runCost.effectiveRunCostUsd) + " USD (" +
               num(ev.runCost.usdPerHour) +
               " USD per hour): check the catalog's economics, price_usd and watts";
    return std::nullopt;
}

} // namespace

bool finitePass(EvaluationContext& ctx)
{
    Evaluation& ev = ctx.ev;
    // A count the bill of materials could not represent (model/checkedmath.h) is reported
    // there, whether or not the caller asked for warnings.
    const bool bom = ctx.options.billOfMaterials;
    for (const Warning& w : bom ? ctx.topology.bomWarnings() : std::vector<Warning>{})
        if (w.code == WarningCode::NonFinite) {
            if (!ctx.options.warnings) // else networkCostPass copied it
                ev.warnings.push_back(w);
            ev.ok = false;
            return false;
        }
    if (const auto cause = firstNonFinite(ctx)) {
        ev.ok = false;
        ev.warnings.push_back(
            Warning{WarningCode::NonFinite, WarningForm::Detail}.name("detail", *cause));
        return false;
    }
    return true;
}

} // namespace archipelago::core
