// evaluate(): checks the scenario's shape, adjusts schedule settings the simulator cannot run
// as given (with a warning), then runs the cost model's passes in order (evaluation/passes.h;
// docs/architecture.md says where each number of the Evaluation is computed).
#include "evaluation/costmodel.h"

#include "evaluation/passes.h"
#include "io/scenarioio.h"
#include "model/checkedmath.h"
#include "model/scheduletraits.h"
#include "model/shapecheck.h"
#include "network/placement.h"
#include "network/topologymodel.h"
#include "pipeline/pipelineschedules.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace archipelago::core {

Evaluation evaluate(const Scenario& scenario)
{
    // No copy of the catalog on the hot path.
    if (scenario.catalogOverrides.empty() && !scenario.calibration)
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

// The placement analyses of the last few shapes, most recent first. An entry holds what
// analyzePlacement reads of a scenario besides the topology and catalog (which the workspace's
// topology model matches): the degrees that shape the groups (TP, CP, PP, EP; DP follows from
// the placement, or from them and the topology), the placement, whether the schedule has the
// interleaved wrap-around boundary, whether warnings were asked for and the datacenter sync
// scheme (it names the data-parallel collective in them). Same inputs, same
// analysis: the numbers do not depend on the cache.
struct EvaluationWorkspace::PlacementCache
{
    static constexpr std::size_t kEntries = 4;
    struct Entry
    {
        int tp = 0;
        int cp = 0;
        int pp = 0;
        int ep = 0;
        bool interleaved = false;
        bool warnings = false;
        DatacenterSync sync = DatacenterSync::Synchronous; // names the DP collective warned about
        Placement placement;
        PlacementAnalysis analysis;

        bool matches(const Scenario& s, bool interleavedIn, bool warningsIn) const
        {
            const Parallelism& par = s.parallelism;
            return tp == par.tp && cp == par.cp && pp == par.pp && ep == par.ep &&
                   interleaved == interleavedIn && warnings == warningsIn &&
                   sync == par.datacenterSync.scheme && placement == s.placement;
        }
    };
    std::vector<Entry> entries;
};

EvaluationWorkspace::EvaluationWorkspace() = default;
EvaluationWorkspace::~EvaluationWorkspace() = default;

const TopologyModel& EvaluationWorkspace::topologyFor(const Topology& topology,
                                                      const Catalog& catalog, bool withBom)
{
    const bool current = m_model && (!withBom || m_model->hasBom()) &&
                         (m_held || m_model->matches(topology, catalog));
    if (!current) {
        build(topology, catalog, withBom);
        m_held = false;
    }
    return *m_model;
}

void EvaluationWorkspace::holdTopology(const Topology& topology, const Catalog& catalog,
                                       bool withBom)
{
    build(topology, catalog, withBom);
    m_held = true;
}

void EvaluationWorkspace::build(const Topology& topology, const Catalog& catalog, bool withBom)
{
    m_model =
        std::make_unique<TopologyModel>(topology, catalog, TopologyModel::Ownership::Copy, withBom);
    ++m_builds;
    if (m_placements) // analysed on the previous model
        m_placements->entries.clear();
}

const PlacementAnalysis& EvaluationWorkspace::placementFor(const Scenario& scenario,
                                                           const Catalog& catalog, bool warnings)
{
    if (!m_placements)
        m_placements = std::make_unique<PlacementCache>();
    std::vector<PlacementCache::Entry>& entries = m_placements->entries;
    const bool interleaved = scenario.schedule.kind == ScheduleKind::Interleaved1F1B;
    const auto hit = std::find_if(entries.begin(), entries.end(), [&](const auto& e) {
        return e.matches(scenario, interleaved, warnings);
    });
    if (hit != entries.end()) {
        std::rotate(entries.begin(), hit, hit + 1); // most recent first
        return entries.front().analysis;
    }
    if (entries.size() < PlacementCache::kEntries)
        entries.emplace_back();
    std::rotate(entries.begin(), entries.end() - 1, entries.end()); // reuse the oldest
    PlacementCache::Entry& e = entries.front();
    const Parallelism& par = scenario.parallelism;
    e.tp = par.tp;
    e.cp = par.cp;
    e.pp = par.pp;
    e.ep = par.ep;
    e.interleaved = interleaved;
    e.warnings = warnings;
    e.sync = par.datacenterSync.scheme;
    e.placement = scenario.placement;
    e.analysis = analyzePlacement(scenario, catalog, m_model.get(), warnings);
    ++m_analyses;
    return e.analysis;
}

namespace {

// The scenario's calibration, when some datacenter's accelerator is the one it was fitted for
// (effectiveCatalog applied it to that accelerator's parameters).
void noteCalibration(const Scenario& s, Evaluation& ev)
{
    if (!s.calibration)
        return;
    for (const Datacenter& dc : s.topology.datacenters)
        if (dc.accelerator == s.calibration->accelerator) {
            ev.calibration = s.calibration;
            return;
        }
}

} // namespace

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
    ctx.workspace = workspace;
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
    // The memory pass reads only the placement pass's results (evaluationfill.cpp fillMemory).
    const bool memoryFirst = options.stopIfOutOfMemory && !options.warnings;
    if (memoryFirst) {
        memoryPass(ctx);
        if (!ev.fitsInMemory || (options.continueAfterMemory && !options.continueAfterMemory(ev)))
            return ev;
    }
    stageCostPass(ctx);
    if (!pipelinePass(ctx)) {
        fail(ev, Warning{WarningCode::Pipeline}.name("detail", ctx.pipe.error));
        return ev;
    }
    dataParallelPass(ctx);
    breakdownPass(ctx);
    if (!memoryFirst)
        memoryPass(ctx);
    networkCostPass(ctx);
    ev.timeline = std::move(ctx.pipe.timeline);
    warningsPass(ctx);
    finitePass(ctx);
    noteCalibration(s, ev);
    return ev;
}

} // namespace archipelago::core
