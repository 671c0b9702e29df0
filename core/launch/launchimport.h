// Import: a framework's launch settings back into a scenario (docs/launch.md, "Import"). The
// settings give the workload, the parallelism, the schedule and the layers per stage; the
// topology, the link settings and what the framework cannot express come from the scenario
// they are imported over, and the placement is repaired for the new degrees (io/
// placementrepair.h). launchPlan → renderLaunchPlan → importLaunchSettings gives back the
// workload and parallelism the framework expresses (test_launchimport, every preset).
#pragma once

#include "launch/launchplan.h"
#include "model/diagnostic.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace archipelago::core {

// The settings found in a text, by name as the framework spells it: Megatron-LM flags ("--x",
// "" for a switch), NeMo overrides and recipe YAML keys ("trainer.strategy.x") and TorchTitan
// TOML keys or --section.key flags ("parallelism.x"), each with its raw value.
struct FoundSettings
{
    std::map<std::string, std::string> values;
    std::vector<Diagnostic> errors; // text that cannot be read (an unclosed quote, a bad line)
};

// Megatron-LM: a command line or a launch script. Shell words (quotes, escapes, comments,
// arrays); NAME=value assignments are substituted into later $NAME / ${NAME}; "--flag=value"
// and "--flag value" (a word that is not a flag after a flag is its value unless the flag is a
// known switch).
FoundSettings readMegatronSettings(std::string_view text, const std::string& fileName);
// NeMo: `key=value` overrides on a command line or script, or a recipe YAML (nested mappings
// flattened to dotted keys; lists are skipped).
FoundSettings readNemoSettings(std::string_view text, const std::string& fileName);
// TorchTitan: a TOML job file ([section] tables, key = value) or --section.key flags; a
// launch script with the TOML in a here-document reads both.
FoundSettings readTorchTitanSettings(std::string_view text, const std::string& fileName);

// Megatron-LM's --pipeline-model-parallel-layout, parsed as parse_str_to_list does
// (megatron/core/transformer/pipeline_parallel_layer_layout.py at core_v0.15.3): commas
// dropped, "(...)*n" then "x*n" unrolled, chunks split at '|'. nullopt when a character is not
// one of E, L, t, m.
std::optional<std::vector<std::string>> parsePipelineLayout(std::string_view layout);

struct ImportedSettings
{
    std::optional<Scenario> scenario; // set when there are no errors
    std::vector<std::string> applied; // "TP 8", "global batch 2048": what the settings set
    std::vector<std::string> ignored; // settings the cost model has no knob for
    std::vector<std::string> notes;   // what was kept from the base, what the repair changed
    std::vector<Diagnostic> errors;   // a value of the wrong kind, a design that cannot be placed
};

// The settings of `text` over `base` (its topology, links, catalog and the knobs the settings
// do not carry); `fileName` names the text in messages.
ImportedSettings importLaunchSettings(Framework framework, std::string_view text,
                                      const Scenario& base, const std::string& fileName);

} // namespace archipelago::core
