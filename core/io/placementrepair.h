// Placement repair: an edit that changes the GPUs or the degrees (TP, CP, PP, a datacenter's
// pods) breaks the GPU accounting of the placement (docs/scenario-format.md, "Placement": each
// stage entry puts tp * cp * dp_replicas GPUs in its datacenter and every datacenter's GPUs are
// placed). The GUI never refuses such an edit when a consistent placement exists: it re-makes
// the placement, the same way in the property editor (to judge the edit before sending it)
// and in the edit controller (to apply it), by calling this one function.
//
// It lives in io/, not model/, because "valid" means what the loader accepts
// (core::checkScenario): the repair picks the first candidate that passes the loader's own
// checks, and model/ may not include io/.
#pragma once

#include "model/catalog.h"
#include "model/diagnostic.h"
#include "model/scenario.h"
#include "model/shapecheck.h"

#include <optional>
#include <string>
#include <vector>

namespace archipelago::core {

// Which candidate gave the repaired placement, in the order they are tried.
enum class PlacementFallback
{
    Kept,      // the edited placement, its layers per stage fitted to pp when needed
    Rescaled,  // the edited shards scaled to the new degrees and GPUs
    SameShape, // the preset of the placement's shape (PP or DP across datacenters)
    OtherShape,
    Implicit // no shards: the whole job in the first datacenter
};

enum class PlacementRepairMode
{
    Repair,       // the edit changed GPUs or degrees: the placement may be re-made
    KeepPlacement // the edit set the placement itself: only the global batch may follow
};

struct PlacementRepair
{
    // The edited scenario with its placement (and maybe its global batch) repaired; nullopt
    // when no candidate passes the checks.
    std::optional<Scenario> scenario;
    PlacementFallback fallback = PlacementFallback::Kept;
    bool globalBatchFitted = false;
    // What changed beyond the edit, for the user: the global batch that followed DP, a TP or CP
    // split across datacenters that had to be dropped.
    std::vector<std::string> notes;
    // When nothing is valid, the reason to refuse: the errors that every candidate placement
    // has, or (when each has different ones) the errors of the edited scenario as it was.
    std::vector<Diagnostic> errors;
};

// `edited` is the scenario after the edit, `before` the scenario the edit started from (its
// degrees, GPUs and placement shape guide the repair). Each candidate is checked against
// `catalog` (the effective catalog of `edited`); the first valid one wins:
//
//  1. Kept: the edited placement as it is, then with the layers per stage fitted to pp and the
//     model (a split of the old stage or layer count is dropped; an even split is spelled out
//     when the layers do not divide into pp * virtual stages, as core::effectiveLayersPerStage
//     would split them).
//     An edit that still adds up is never second-guessed.
//  2. Rescaled: the edited shards, taken as laid out for `before`, scaled proportionally:
//     each run of stages in one datacenter gets its share of the new pp (core::apportion) and
//     dp_replicas scales by the change of tp * cp * pp and of the shard's datacenters' GPUs
//     (when all of them changed by the same ratio). This keeps a hand-made placement (several
//     shards, uneven datacenters, a TP/CP split) instead of replacing it with a preset. A split
//     whose k datacenters no longer divide the new TP (CP) is then dropped from its shard.
//  3. SameShape: `before`'s grouping re-made (core::pipelinesPerGroup over
//     core::pipelineGroups: the same datacenters share each pipeline, so a layout chosen per
//     boundary survives), then core::ppAcrossDatacenters when a shard of `before` crossed a
//     datacenter boundary with its pipeline, else core::dpAcrossDatacenters (an implicit
//     placement never crosses one): the user chose which dimension crosses each boundary, so
//     keep that choice.
//  4. OtherShape: the other preset, when the first leaves GPUs unused or does not divide;
//     `notes` says the layout changed.
//  5. Implicit: no shards, for a topology whose first datacenter can hold the job.
//
// A candidate that leaves GPUs idle is valid (checkScenario warns, spare-gpus) but is taken
// only when no candidate, with the batch fitted or not, places every GPU.
//
// The presets re-make the shards and so drop any TP/CP split; `notes` says so, and also when
// the edit itself set a placement without a split `before` had. With `mode` KeepPlacement only
// the edited placement is tried. Last, when the edit left the global batch
// alone and no candidate is valid as it is, each is tried again with the batch fitted to its
// DP (core::withFittedGlobalBatch): the batch follows DP rather than the edit being refused.
// `topology` Checked: `edited`'s topology has no error under core::checkTopology, and the
// candidates are checked without its rules (core::checkScenario with TopologyRules::Checked).
PlacementRepair repairPlacement(const Scenario& edited, const Scenario& before,
                                const Catalog& catalog,
                                PlacementRepairMode mode = PlacementRepairMode::Repair,
                                TopologyRules topology = TopologyRules::Run);

} // namespace archipelago::core
