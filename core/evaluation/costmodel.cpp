// evaluate(): checks the scenario's shape, adjusts schedule settings the simulator cannot run
// as given (with a warning), then runs the cost model's passes in order (evaluation/passes.h;
// docs/architecture.md says where each number of the Evaluation is computed).
#include "evaluation/costmodel.h"

#include "evaluation/passes.h"
#include "io/scenarioio.h"
#include "model/checkedmath.h"
#include "model/scheduletraits.h"
#include "model/shapecheck.h"
#include "network/topologymodel.h"
#include "pipeline/pipelineschedules.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace archipelago::core {

Catalog effectiveCatalog(const Scenario& scenario)
{
    if (scenario.catalogOverrides.empty())
        return builtinCatalog();
    return builtinCatalog().mergedWith(scenario.catalogOverrides);
}

Evaluation evaluate(const Scenario& scenario)
{
    if (scenario.catalogOverrides.empty()) // no copy of the catalog on the hot path
        return evaluate(scenario, builtinCatalog());
    return evaluate(scenario, effectiveCatalog(scenario));
}

namespace {

void fail(Evaluation& ev, Warning warning)
{
    ev.ok = false;
    ev.warnings.push_back(std::move(warning));
}

// Degrees and shapes that must divide for the model to mean anything: the cost-model subset of
// the scenario's shape rules (model/shapecheck.h), which checkScenario runs too, so that both
// say the same thing about a scenario. The first error fails the evaluation.
bool checkScenarioShape(const Scenario& s, const Catalog& catalog, Evaluation& ev)
{
    const ShapeFindings findings = checkCostModelShape(s, catalog);
    const ShapeFinding* error = findings.firstError();
    if (!error)
        return true;
    // "/pointer: message": a range rule's message alone does not say which field it is about.
    fail(ev, Warning{warningCode(error->category), WarningForm::Detail}.name(
                 "detail", error->diagnostic.toString()));
    return false;
}

// Schedule settings the pipeline simulator cannot run as given, adjusted with a warning that
// names the cause (evaluate() never fails on them), when `warnings` is given. Returns true
// when `par`/`kind` changed.
bool adjustSchedule(const Scenario& s, Parallelism& par, ScheduleKind& kind,
                    std::vector<Warning>* warnings)
{
    bool changed = false;
    // DualPipe fixes its 2 chunks per rank itself (chunksPerRank); the scenario's v stays 1.
    if (par.virtualStages > 1 && kind != ScheduleKind::Interleaved1F1B) {
        if (warnings)
            warnings->push_back(Warning{WarningCode::VirtualStagesIgnored}.count(
                "virtual_stages", par.virtualStages));
        par.virtualStages = 1;
        changed = true;
    }
    if (kind == ScheduleKind::Interleaved1F1B && par.virtualStages == 1)
        kind = ScheduleKind::OneFOneB;
    const std::int64_t dp = dataParallel(s);
    if (kind == ScheduleKind::Interleaved1F1B && dp >= 1 && par.microBatch >= 1 &&
        s.workload.globalBatch % (std::int64_t{par.microBatch} * dp) == 0) {
        const std::int64_t m = s.workload.globalBatch / (std::int64_t{par.microBatch} * dp);
        if (m % par.pp != 0) {
            // Megatron-LM's interleaved schedule runs micro-batches in groups of p and rejects
            // a smaller last group (Narayanan et al. 2021 section 2.2.2); Megatron-core since
            // 2024 accepts it via microbatch_group_size_per_vp_stage, which we do not model.
            if (warnings)
                warnings->push_back(Warning{WarningCode::InterleavingFallback}
                                        .count("micro_batches", m)
                                        .count("pp", par.pp)
                                        .count("virtual_stages", par.virtualStages));
            par.virtualStages = 1;
            kind = ScheduleKind::OneFOneB;
            changed = true;
        }
    }
    return changed;
}

} // namespace

EvaluationWorkspace::EvaluationWorkspace() = default;
EvaluationWorkspace::~EvaluationWorkspace() = default;

const TopologyModel& EvaluationWorkspace::topologyFor(const Topology& topology,
                                                      const Catalog& catalog, bool withBom)
{
    if (!m_model || !m_model->matches(topology, catalog) || (withBom && !m_model->hasBom())) {
        m_model = std::make_unique<TopologyModel>(topology, catalog, TopologyModel::Ownership::Copy,
                                                  withBom);
        ++m_builds;
    }
    return *m_model;
}

Evaluation evaluate(const Scenario& scenario, const Catalog& catalog,
                    const EvaluateOptions& options, EvaluationWorkspace* workspace)
{
    Evaluation ev;
    ev.ok = true;
    Parallelism adjusted = scenario.parallelism;
    ScheduleKind kind = scenario.schedule.kind;
    std::vector<Warning> scheduleWarnings;
    Scenario copy;
    const bool changed =
        adjustSchedule(scenario, adjusted, kind, options.warnings ? &scheduleWarnings : nullptr);
    if (changed) { // a copy only off the hot path
        copy = scenario;
        copy.parallelism = adjusted;
        copy.schedule.kind = kind;
    }
    const Scenario& s = changed ? copy : scenario;
    for (Warning& wn : scheduleWarnings)
        ev.warnings.push_back(std::move(wn));
    if (!checkScenarioShape(s, catalog, ev))
        return ev;

    std::unique_ptr<TopologyModel> local;
    const TopologyModel& topology =
        workspace ? workspace->topologyFor(s.topology, catalog, options.billOfMaterials)
                  : *(local = std::make_unique<TopologyModel>(s.topology, catalog,
                                                              TopologyModel::Ownership::Borrow,
                                                              options.billOfMaterials));
    EvaluationContext ctx(s, catalog, options, topology, ev);
    ctx.par = s.parallelism;
    ctx.kind = kind;
    ctx.p = ctx.par.pp;
    ctx.v = chunksPerRank(kind, ctx.par.virtualStages); // DualPipe: 2 (section 3.2.1)
    ctx.nChunks = ctx.p * ctx.v;
    ctx.chunkRank = chunkRanks(kind, ctx.p, ctx.v);
    ctx.dp = dataParallel(s);
    ctx.m = static_cast<int>(microBatchesPerIteration(s));
    // DualPipe: each of the two model copies runs half the micro-batches.
    ctx.chunkMicroBatches = ctx.m / scheduleTraits(kind).modelCopies;
    // The shape check bounds the GPUs placed; the product is checked all the same, as every
    // product of degrees is (model/checkedmath.h).
    const auto gpus = checkedProduct(ctx.dp, ctx.par.tp, ctx.par.cp, ctx.p);
    if (!gpus) {
        fail(ev, Warning{WarningCode::Invalid, WarningForm::GpuOverflow}
                     .count("tp", ctx.par.tp)
                     .count("cp", ctx.par.cp)
                     .count("pp", ctx.p)
                     .count("dp", ctx.dp));
        return ev;
    }
    ev.gpus = *gpus;

    placementPass(ctx);
    stageCostPass(ctx);
    if (!pipelinePass(ctx)) {
        fail(ev, Warning{WarningCode::Pipeline}.name("detail", ctx.pipe.error));
        return ev;
    }
    dataParallelPass(ctx);
    breakdownPass(ctx);
    memoryPass(ctx);
    networkCostPass(ctx);
    ev.timeline = std::move(ctx.pipe.timeline);
    warningsPass(ctx);
    finitePass(ctx);
    return ev;
}

} // namespace archipelago::core
