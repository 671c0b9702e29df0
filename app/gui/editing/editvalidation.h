// Keeps every edit valid ("never an invalid document"). An edit is first built as the whole
// scenario it would produce; validateEdit checks it with core::checkEdit (io/editcheck.h), the
// check the property editor judges its fields with: the loader's validation and, for edits that
// change the GPUs or the degrees, the placement re-made (core::repairPlacement). When the
// data-parallel degree changes and the edit did not set the global batch itself, the check may
// find a valid scenario only with the global batch fitted to DP: validateEdit then reports the
// change (batchBefore, batchAfter, batchQuestion) and the caller must ask the user before
// applying it (a different batch is a different job); nothing is invented beyond that: an edit
// still invalid is refused with the reason. What is left here is the wording.
#pragma once

#include "io/scenarioio.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace archipelago::app {

struct ValidatedEdit
{
    std::optional<core::Scenario> scenario; // the scenario to apply; nullopt: refused
    QString reason;                         // why it was refused (the first error)
    // What was adjusted besides the edit ("global batch 8 -> 16 sequences ...", a TP split
    // across datacenters dropped), "; "-separated.
    QString note;
    // The global batch the repaired scenario needs, when it differs from the edit's: the
    // workload changes as a side effect and needs the user's consent (0 and 0 otherwise).
    std::int64_t batchBefore = 0;
    std::int64_t batchAfter = 0;
    bool changesGlobalBatch() const { return batchAfter != batchBefore; }
    // "Global batch 2,048 no longer divides …; change it to 2,016 sequences?"
    QString batchQuestion = {};
};

// What the user is asked when an edit is valid only with another global batch, and the answers.
struct BatchQuestion
{
    QString edit;     // the edit's undo text
    QString question; // ValidatedEdit::batchQuestion
    std::int64_t batchBefore = 0;
    std::int64_t batchAfter = 0;
    // The other way to keep the edit valid: keep the batch with fewer data-parallel replicas,
    // `keepDataParallel` of them, leaving `keepIdleGpus` of `totalGpus` idle (0 and 0 when the
    // batch cannot be kept).
    std::int64_t keepDataParallel = 0;
    std::int64_t keepIdleGpus = 0;
    std::int64_t totalGpus = 0;
    // What the idle GPUs cost (0 when the catalog prices nothing): an hour, and over the kept
    // design's time to train with failures.
    double keepIdleUsdPerHour = 0.0;
    double keepIdleRunUsd = 0.0;
    bool canKeepBatch() const { return keepDataParallel > 0; }
};
enum class BatchAnswer
{
    ChangeBatch, // apply the edit with the batch fitted to the new DP
    KeepBatch,   // apply it with the batch kept and some GPUs idle
    Cancel       // do not apply it
};
struct BatchReply
{
    BatchAnswer answer = BatchAnswer::Cancel;
    bool remember = false; // the same answer, without asking, for the rest of the session
};
// A standing answer to the question (Edit > Global Batch When DP Changes).
enum class BatchPolicy
{
    Ask,
    ChangeBatch,
    KeepBatch // falls back to asking when the batch cannot be kept
};

// The errors (not the warnings) core::checkScenario finds, against the effective catalog.
std::vector<core::Diagnostic> scenarioErrors(const core::Scenario& scenario);

// `fitted` (an accepted edit whose batch was fitted to its DP) with the global batch `batch`
// kept instead: the placement cut to the largest data-parallel degree that divides the batch
// (core::withDataParallelAtMost), the rest of the GPUs idle. Nullopt when no degree divides it or
// the loader's checks refuse the result (idle GPUs are only a warning).
std::optional<core::Scenario> keepingBatch(const core::Scenario& fitted, std::int64_t batch);

// core::checkEdit(before, candidate, fields) in the user's words; with `repairPlacement` false
// the placement is kept as the edit set it (only the batch follows). `fields`: the JSON
// pointers the edit set (a property edit's), empty for an edit of the whole scenario.
ValidatedEdit validateEdit(const core::Scenario& candidate, const core::Scenario& before,
                           bool repairPlacement, const std::vector<std::string>& fields = {});

} // namespace archipelago::app
