// Launch settings for a design point: what a training framework needs to run the scenario as
// Archipelago evaluated it (docs/launch.md). Three frameworks, each at the release whose
// argument list tests/data/launch/ keeps: Megatron-LM core_v0.15.3 (pretrain_gpt.py arguments),
// NeMo 2.4.0 (`nemo llm pretrain` recipe overrides) and TorchTitan 0.2.2 (a TOML job file).
//
// Beside the framework's own settings a plan carries what the placement implies: which
// building hosts every rank (a Slurm hostfile for `srun --distribution=arbitrary`), the NCCL
// environment of the long-haul links, and every knob of the scenario the framework cannot
// express, each listed with the reason rather than dropped.
#pragma once

#include "model/evaluation.h"
#include "model/scenario.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace archipelago::core {

enum class Framework
{
    MegatronLm,
    Nemo,
    TorchTitan
};

const char* toString(Framework framework);      // "megatron-lm", "nemo", "torchtitan"
const char* displayName(Framework framework);   // "Megatron-LM", "NeMo", "TorchTitan"
const char* pinnedRelease(Framework framework); // the release the settings are written for
std::optional<Framework> frameworkFromString(const std::string& text);

// One setting as the framework spells it. A Megatron-LM switch has an empty value; a NeMo
// override is `name=value`; a TorchTitan key is `section.key` with a TOML value (strings quoted).
struct LaunchSetting
{
    std::string name;
    std::string value;
    std::string from; // what in the scenario it comes from, for the file's comments
};

// A scenario knob the framework has no setting for, and what the settings do instead.
struct Unexpressed
{
    std::string knob;
    std::string why;
};

// A run of consecutive global ranks hosted by one building.
struct RankRun
{
    Id datacenter = 0;
    std::int64_t ranks = 0;
};

struct BuildingNodes
{
    Id datacenter = 0;
    std::string name;
    std::int64_t ranks = 0;
    std::int64_t nodes = 0; // ranks / GPUs per node, rounded up
};

// Which building hosts each global rank of the framework's numbering. Ranks of one building
// fill its nodes in rank order, GPUs-per-node ranks to a node.
struct RankLayout
{
    int gpusPerNode = 8;
    std::int64_t worldSize = 0;
    std::vector<RankRun> runs;            // in rank order, adjacent runs in different buildings
    std::vector<BuildingNodes> buildings; // in topology order, those that host ranks
    std::vector<std::string> notes;       // why a node holds fewer ranks than GPUs, etc.
};

struct LaunchPlan
{
    Framework framework = Framework::MegatronLm;
    std::string scenarioName;
    std::string recipe; // NeMo: the recipe whose defaults the overrides start from
    std::vector<LaunchSetting> settings;
    std::vector<LaunchSetting> environment; // NCCL_* for the links between buildings
    std::vector<Unexpressed> unexpressed;
    std::vector<std::string> notes; // choices the settings make that a reader should know
    RankLayout ranks;
};

// The framework's rank order that a scenario's placement maps to: Megatron-LM's default
// tp-cp-ep-dp-pp or, with --use-tp-pp-dp-mapping, tp-cp-ep-pp-dp (megatron/training/
// initialize.py at core_v0.15.3). True when pipeline stages are inner to data parallelism.
bool pipelineInnerToData(const Placement& placement);

// Every rank's building, from the placement, in the framework's numbering.
RankLayout rankLayout(const Scenario& scenario, const Catalog& catalog);

// The plan for one framework. `evaluation` supplies the checkpoint interval in iterations
// (Daly's optimum when the scenario leaves it to the model); pass the scenario's evaluation.
LaunchPlan launchPlan(const Scenario& scenario, const Catalog& catalog,
                      const Evaluation& evaluation, Framework framework);

// "WARNING: the model predicts this design does not fit in memory (…)": the first note of a
// plan whose design does not fit.
std::string memoryWarning(const Evaluation& evaluation);

// The plan as one file: a bash script for Megatron-LM and NeMo, a TOML job file with a
// launch script in its comments for TorchTitan. `archipelagoVersion` goes in the header.
std::string renderLaunchPlan(const LaunchPlan& plan, const std::string& archipelagoVersion);

// Writes the rendered plan to `path` atomically (io/textfile.h) and, when the file is new,
// makes it executable by its owner and group. False after setting `error`.
bool writeLaunchScript(const std::string& path, const std::string& text, std::string& error);

// The Slurm hostfile for the layout (one host per rank, in rank order) given each hosting
// building's node names (nodeNames[i] for layout.buildings[i]): what the rendered script's
// write_hostfile does in bash, for tests.
std::vector<std::string> hostfileLines(const RankLayout& layout,
                                       const std::vector<std::vector<std::string>>& nodeNames);

} // namespace archipelago::core
