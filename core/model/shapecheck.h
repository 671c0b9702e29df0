// The scenario's shape rules, written once: which values are in range, and how degrees,
// layers, heads, batch and placement fit together. Two callers run them:
//  - checkScenario (io/scenarioio.h), through its phase-1 and phase-2 checkers, with
//    ShapeRules::Scenario: everything a scenario file must satisfy;
//  - evaluate() (evaluation/costmodel.h) with ShapeRules::CostModel: only what the cost model
//    needs for its numbers to mean anything, so that scenarios built in code (validation runs,
//    GUI edits, the explorer) that are not yet a valid file still evaluate.
// Divisibility rules are Megatron-LM's (megatron/core/transformer/transformer_config.py,
// megatron/training/arguments.py, megatron/core/parallel_state.py), because the cost model
// describes Megatron-style training.
#pragma once

#include "model/catalog.h"
#include "model/diagnostic.h"
#include "model/evaluation.h"
#include "model/scenario.h"
#include "model/scenariolimits.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace archipelago::core {

enum class ShapeRules
{
    Scenario,  // checkScenario: Megatron-LM's rules, the file bounds, every GPU placed
    CostModel, // evaluate(): the subset without which the cost model computes nonsense
};

// Whether the rules on the topology alone (its fields, the datacenter graph's connectivity)
// run. `Checked`: this topology, exactly as it is, passed checkScenario before (a sweep's
// topology variant, explore/pointplacement.h), so they cannot fail now; skipping them keeps a
// candidate's check from growing with the number of DCI links.
enum class TopologyRules
{
    Run,
    Checked,
};

// What kind of rule a finding breaks; evaluate() turns it into its Warning code.
enum class ShapeCategory
{
    Invalid,            // "invalid"
    UnknownAccelerator, // "unknown-accelerator"
    DegreesDoNotDivide, // "degrees-do-not-divide"
};

WarningCode warningCode(ShapeCategory category);

// The spare-gpus warning: a placement that leaves GPUs of `dc` idle (legal: the explorer's DP
// dimension may use fewer GPUs than the topology holds; docs/explore.md).
Warning spareGpusWarning(const Datacenter& dc, std::int64_t heldGpus, std::int64_t placedGpus);

struct ShapeFinding
{
    ShapeCategory category = ShapeCategory::Invalid;
    Diagnostic diagnostic; // severity, JSON pointer and message; the file is the caller's
};

// The findings of the rules, in the order they were found. One that keeps no warnings (what a
// sweep asks of each candidate: refused or not) drops them, and the rules skip composing them.
class ShapeFindings
{
public:
    enum class Keep : std::uint8_t
    {
        All,
        ErrorsOnly
    };
    explicit ShapeFindings(Keep keep = Keep::All)
        : m_keepWarnings(keep == Keep::All)
    {}

    void error(ShapeCategory category, std::string pointer, std::string message);
    void warning(std::string pointer, std::string message);
    bool keepsWarnings() const { return m_keepWarnings; }

    bool hasErrors() const { return m_firstError < m_all.size(); }
    const ShapeFinding* firstError() const;
    const std::vector<ShapeFinding>& all() const { return m_all; }

private:
    std::vector<ShapeFinding> m_all;
    std::size_t m_firstError = static_cast<std::size_t>(-1);
    bool m_keepWarnings = true;
};

// Datacenter name for messages: "dc-west" (id 3).
std::string describeDatacenter(const Datacenter& dc);
// The wording of every range rule: "expected a positive integer, got 0".
std::string expectedGot(std::string_view expected, std::string_view got);
// A name that must be in the catalog (`optional` names may be "" for the default): the problem,
// or nullopt when `known`.
std::optional<std::string> catalogNameProblem(const std::string& name, const char* kind,
                                              bool optional, bool known);

// ---- Field rules: each value on its own (checkScenario's phase 1).
void checkDatacentersPresent(const Topology& topology, ShapeFindings& out);
void checkAccelerator(const Datacenter& dc, std::size_t index, const Catalog& catalog,
                      ShapeFindings& out);
// Layers, hidden, heads, kv_heads, ffn_hidden, vocab, seq_len, global_batch.
void checkWorkloadDimensions(const Workload& workload, ShapeRules rules, ShapeFindings& out);
// The mixture-of-experts fields (ShapeRules::Scenario only).
void checkMoeFields(const Workload& workload, ShapeFindings& out);
// Multi-head latent attention's ranks and head dimensions, when any is set.
void checkMlaFields(const Workload& workload, ShapeFindings& out);
// Degrees, micro-batch, ZeRO stage, rank order, shard replicas and layers per stage.
void checkParallelismFields(const Scenario& scenario, ShapeRules rules, ShapeFindings& out);

// ---- Consistency rules: how values fit together (checkScenario's phase 2). Run only on a
// scenario whose field rules passed (with the same ShapeRules): they divide by the degrees,
// and with ShapeRules::Scenario index by the ids that phase 1 vouches for.
// Every datacenter reachable from the first over DCI links (run by checkShapeConsistency with
// ShapeRules::Scenario and TopologyRules::Run).
void checkConnectivity(const Topology& topology, ShapeFindings& out);

void checkShapeConsistency(const Scenario& scenario, ShapeRules rules, ShapeFindings& out,
                           TopologyRules topology = TopologyRules::Run);

// Every ShapeRules::CostModel rule, the field rules first: what evaluate() enforces.
ShapeFindings checkCostModelShape(const Scenario& scenario, const Catalog& catalog);

} // namespace archipelago::core
