// Passes 3 and 4: the pipeline schedule, then the data-parallel tail after it drains.
#include "evaluation/passes.h"

#include "model/scheduletraits.h"
#include "model/topologygraph.h"

#include <algorithm>
#include <optional>
#include <string>

namespace archipelago::core {

namespace {

std::string datacenterName(const Scenario& s, Id id)
{
    const Datacenter* dc = findDatacenter(s.topology, id);
    return dc ? dc->name : "?";
}

// One warning per DCI stage boundary, naming the route it takes between the datacenters it
// joins (those of its slowest shard, from the placement) and what its transfers cost.
void warnDciBoundaries(EvaluationContext& ctx)
{
    for (const EvaluationContext::DciBoundary& b : ctx.dciBoundaries) {
        Warning w = Warning{WarningCode::DciExposed}
                        .count("from_stage", b.rank)
                        .count("to_stage", (b.rank + 1) % ctx.p)
                        .count("from_datacenter_id", b.fromDatacenter)
                        .count("to_datacenter_id", b.toDatacenter)
                        .name("from_datacenter", datacenterName(ctx.s, b.fromDatacenter))
                        .name("to_datacenter", datacenterName(ctx.s, b.toDatacenter));
        std::optional<DciRoute> scratch;
        if (const DciRoute* route = ctx.topology.route(b.fromDatacenter, b.toDatacenter, scratch))
            w.data.insert(w.data.end(), {{"route", routeName(ctx.s.topology, *route)},
                                         {"route_km", route->distanceKm},
                                         {"rtt_ms", 2.0 * route->oneWayLatencyS * 1e3}});
        ctx.ev.warnings.push_back(std::move(w)
                                      .num("latency_ms", b.latencyS * 1e3)
                                      .num("transfer_ms", b.transferS * 1e3)
                                      .num("exposed_ms", b.exposedS * 1e3)
                                      .num("all_exposed_ms", ctx.dciExposedS * 1e3));
    }
}

double periodOf(const PipelineResult& r, ScheduleKind kind)
{
    // ZB-H2's zero bubble exists only per period: iterations overlap without a barrier.
    return scheduleTraits(kind).steadyStatePeriod && r.periodS > 0.0 ? r.periodS : r.makespanS;
}

} // namespace

bool pipelinePass(EvaluationContext& ctx)
{
    PipelineSpec& spec = ctx.spec;
    spec.recordTimeline = ctx.options.timeline;
    ctx.pipe = simulatePipeline(spec);
    if (!ctx.pipe.ok)
        return false;
    ctx.pipeS = periodOf(ctx.pipe, ctx.kind);
    if (!ctx.options.attribution)
        return true;
    // What the transfers cost is what the same schedule loses to them: re-simulate with the
    // transfers removed (all of them for the breakdown, only the DCI ones for the warning), so
    // that the bubble left in the breakdown is the schedule's own and "exposed PP" is the
    // transfers' share (the same attribution as a with/without comparison in a simulator).
    const auto periodWithout = [&](auto&& keep) {
        const std::vector<double> sends = spec.sendS;
        const std::vector<PipelineLoad> loads = spec.loads;
        const bool timeline = spec.recordTimeline;
        spec.recordTimeline = false;
        for (std::size_t i = 0; i < spec.sendS.size(); ++i)
            if (!keep(i))
                spec.sendS[i] = 0.0;
        // A removed transfer no longer loads the shared links either.
        std::erase_if(spec.loads, [&](const PipelineLoad& l) {
            return !keep(static_cast<std::size_t>(l.boundary));
        });
        const PipelineResult r = simulatePipeline(spec);
        spec.sendS = sends;
        spec.loads = loads;
        spec.recordTimeline = timeline;
        return r.ok ? periodOf(r, ctx.kind) : ctx.pipeS;
    };
    const bool anySend =
        std::any_of(spec.sendS.begin(), spec.sendS.end(), [](double t) { return t > 0.0; });
    if (anySend)
        ctx.ppExposedS =
            std::max(0.0, ctx.pipeS - periodWithout([](std::size_t) { return false; }));
    if (ctx.options.warnings && ctx.anyDci && !ctx.dciBoundaries.empty()) {
        ctx.dciExposedS = std::max(
            0.0, ctx.pipeS - periodWithout([&](std::size_t i) { return !spec.sendCrossesDci[i]; }));
        // Each boundary's own share: the same schedule without only its DCI transfers. The
        // shares need not add up to the whole (transfers of different boundaries can hide
        // behind one another), so the warning gives both.
        for (EvaluationContext::DciBoundary& b : ctx.dciBoundaries)
            b.exposedS = ctx.dciBoundaries.size() == 1
                             ? ctx.dciExposedS
                             : std::max(0.0, ctx.pipeS - periodWithout([&](std::size_t i) {
                                                 return !spec.sendCrossesDci[i] ||
                                                        ctx.sendBoundary[i] != b.rank;
                                             }));
        warnDciBoundaries(ctx);
    }
    return true;
}

void dataParallelPass(EvaluationContext& ctx)
{
    ctx.dpc = dataParallelCost(ctx.s, ctx.par, ctx.placement, ctx.accel, ctx.chunks, ctx.parts,
                               ctx.pipe, &ctx.traffic);
}

} // namespace archipelago::core
