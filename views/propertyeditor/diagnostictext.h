// The loader's diagnostics in the user's words, for the property editor. The checker speaks
// JSON ("tp = 3 does not divide heads = 128", "/workload/global_batch: ..."), which is right
// for the CLI and for files; a field next to a spin box should say what is wrong and what would
// be accepted: "TP 3 does not divide the 128 attention heads. TP must be a whole number ≥ 1
// that divides the heads, the KV heads and the FFN size and fits a scale-up domain of 8 GPUs:
// 1, 2, 4 or 8." Messages not recognised keep their text, with snake_case names spelled out.
#pragma once

#include "io/scenarioio.h"

#include <QString>

namespace archipelago::views {

// The rule of the TP degree for this scenario, with the values it accepts.
QString tensorParallelRule(const core::Scenario& scenario);

// The diagnostic's message in words (the pointer and severity are the caller's). A message
// may end with the field's rule on a line of its own, after "\n" (FieldRow shows each rule
// once, after the findings).
QString userMessage(const core::Diagnostic& diagnostic, const core::Scenario& scenario);

// Where a pointer is, in words: "Datacenter building-a", "Global batch", "" when unknown.
QString placeOf(const std::string& pointer, const core::Scenario& scenario);

} // namespace archipelago::views
