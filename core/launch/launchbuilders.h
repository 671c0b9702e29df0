// The three frameworks' settings (launchplan.cpp dispatches; one file per framework).
#pragma once

#include "launch/launchplan.h"

#include <cstdint>
#include <string>

namespace archipelago::core::launch {

// What every framework reads off the scenario the same way.
struct PlanInputs
{
    const Scenario& scenario;
    std::int64_t dp = 1;
    int gpusPerNode = 8;
    std::int64_t trainIterations = 0;      // tokens to train / tokens per iteration, rounded up
    std::int64_t checkpointIterations = 0; // 0 = no checkpoint interval (no failures modelled)
    int buildings = 1;                     // datacenters hosting ranks
    bool dpCrossesBuildings = false;
};

// Appends to a plan: a setting (text or integer value), a boolean in the framework's literal
// (Python's True/False for NeMo, TOML's true/false for TorchTitan), an unexpressed knob.
struct Adder
{
    LaunchPlan& plan;
    void operator()(std::string name, std::string value, std::string from) const
    {
        plan.settings.push_back({std::move(name), std::move(value), std::move(from)});
    }
    void operator()(std::string name, long long value, std::string from) const
    {
        (*this)(std::move(name), std::to_string(value), std::move(from));
    }
    void flag(std::string name, bool value, std::string from) const
    {
        const bool python = plan.framework == Framework::Nemo;
        (*this)(std::move(name), value ? (python ? "True" : "true") : (python ? "False" : "false"),
                std::move(from));
    }
    void unexpressed(std::string knob, std::string why) const
    {
        plan.unexpressed.push_back({std::move(knob), std::move(why)});
    }
};

void addMegatronSettings(const PlanInputs& in, LaunchPlan& plan);
void addNemoSettings(const PlanInputs& in, LaunchPlan& plan);
void addTorchTitanSettings(const PlanInputs& in, LaunchPlan& plan);

// Layers of each of the pp x v model chunks in Megatron-LM's order (chunk (vpp, pp) at index
// vpp * pp + pp_rank), each rank's layers spread evenly over its v chunks.
std::vector<int> chunkLayers(const Scenario& scenario);
// Megatron-LM's --pipeline-model-parallel-layout for an uneven split ("Et*10|t*10|t*12L"):
// the embedding on the first chunk, the loss (and MTP modules) on the last.
std::string pipelineLayout(const Scenario& scenario);

std::string quoted(const std::string& text); // a TOML / Python string literal

} // namespace archipelago::core::launch
