// The cost model entry point: a pure function of the scenario (ARCHITECTURE.md section 3).
// The same function serves the GUI (off the UI thread), the CLI, the report and the explorer.
// evaluate() runs the passes of evaluation/passes.h in order.
#pragma once

#include "model/catalog.h"
#include "model/evaluation.h"
#include "model/scenario.h"

#include <functional>
#include <memory>

namespace archipelago::core {

class TopologyModel;
struct PlacementAnalysis;

// What a caller needs from an evaluation. The explorer turns everything off but the numbers
// it ranks on; the GUI and the CLI keep the defaults.
struct EvaluateOptions
{
    bool timeline = true;        // record the pipeline timeline (Evaluation::timeline)
    bool warnings = true;        // name the causes worth naming (Evaluation::warnings)
    bool billOfMaterials = true; // BOM items, network capex and power
    // Re-simulate the pipeline without its transfers to split their exposed time out of the
    // bubble (Breakdown::ppCommS). Off: one simulation, and the transfers' share stays in the
    // bubble; the iteration time is the same.
    bool attribution = true;
    // A search that drops points which do not fit in HBM: run the memory pass right after the
    // placement and, when the point does not fit, stop there (the Evaluation is ok, with
    // fitsInMemory false and the memory figures, nothing else). Only without warnings (their
    // order would change); every figure of a point that fits is the same.
    bool stopIfOutOfMemory = false;
    // With stopIfOutOfMemory: asked after the memory pass of a point that fits, with the
    // Evaluation so far (placement and memory figures); false stops there too. The explorer's
    // bound filter decides with the exact memory peak (explore/lowerbound.h).
    std::function<bool(const Evaluation&)> continueAfterMemory;
};

// Work that depends only on the topology (routes, fabric sizing, the bill of materials),
// kept between evaluations of the same topology, and the placement analyses of the last few
// (TP, CP, PP, EP, placement) shapes evaluated on it (an explorer evaluates many points of one
// shape in a row). One per thread: evaluate() replaces what it holds when the topology or
// catalog changes.
class EvaluationWorkspace
{
public:
    EvaluationWorkspace();
    ~EvaluationWorkspace();
    EvaluationWorkspace(const EvaluationWorkspace&) = delete;
    EvaluationWorkspace& operator=(const EvaluationWorkspace&) = delete;

    // The topology model for `topology`, built on first use (with its BOM when asked).
    const TopologyModel& topologyFor(const Topology& topology, const Catalog& catalog,
                                     bool withBom);
    int topologyBuilds() const { return m_builds; }
    // Builds the model of `topology` now and answers every topologyFor() with it, without
    // comparing, until the next call: comparing grows with the DCI links, and a caller that
    // evaluates many scenarios on one topology (a sweep's worker on one topology variant)
    // knows when it changes. The caller's scenarios must have this topology until then.
    void holdTopology(const Topology& topology, const Catalog& catalog, bool withBom);
    // The placement analysis of `scenario` on the topology model topologyFor() returned last
    // (analyzePlacement), from the cache when a recent evaluation had the same inputs.
    const PlacementAnalysis& placementFor(const Scenario& scenario, const Catalog& catalog,
                                          bool warnings);
    int placementAnalyses() const { return m_analyses; }

private:
    void build(const Topology& topology, const Catalog& catalog, bool withBom);

    struct PlacementCache;
    std::unique_ptr<TopologyModel> m_model;
    std::unique_ptr<PlacementCache> m_placements;
    int m_builds = 0;
    int m_analyses = 0;
    bool m_held = false;
};

// Evaluate with the effective catalog.
Evaluation evaluate(const Scenario& scenario);
// Evaluate against an explicit catalog (already merged). `workspace`, when given, carries the
// per-topology work from one call to the next.
Evaluation evaluate(const Scenario& scenario, const Catalog& catalog,
                    const EvaluateOptions& options = {}, EvaluationWorkspace* workspace = nullptr);

} // namespace archipelago::core
