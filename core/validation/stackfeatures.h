// When each training stack gained each feature the unpublished-knob search can choose
// (validation/unpublishedknobs.h): a published run's `training.software` and
// `training.software_date` (published-runs format version 2) say which stack and which release
// it ran, and a knob the run does not publish may only take a value that release had. The dates
// and their sources are one table, stackfeatures.cpp.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace archipelago::core {

// A calendar month, as "YYYY-MM".
struct YearMonth
{
    int year = 0;
    int month = 0; // 1 to 12

    auto operator<=>(const YearMonth&) const = default;
};

// "YYYY-MM" with a year from kFirstYear and a month 01 to 12; nullopt for anything else.
inline constexpr int kFirstYear = 1970;
std::optional<YearMonth> parseYearMonth(std::string_view text);
std::string toString(YearMonth m);

enum class StackFeature
{
    InterleavedSchedule,  // virtual pipeline stages (interleaved 1F1B)
    SequenceParallel,     // Megatron's sequence parallelism
    SelectiveRecompute,   // recomputing attention only
    DistributedOptimizer, // optimizer state sharded across data-parallel ranks (ZeRO-1 and up)
};

// "sequence parallelism", "the interleaved schedule", ...
std::string featureName(StackFeature f);

// Whether the table knows `stack` ("Megatron-LM", "NeMo", "MegaScale", "DeepSpeed").
bool knownStack(std::string_view stack);

// The first release of `stack` that had `f`; nullopt when the stack is not in the table.
std::optional<YearMonth> featureRelease(std::string_view stack, StackFeature f);

// Why a run of `stack` released `date` cannot use `f` ("Megatron-LM had it from 2022-05, the run
// used 2021-04"), or nullopt when it can: a stack the table does not know, or a run without a
// date (format version 1), is not restricted.
std::optional<std::string> missingFeature(const std::optional<std::string>& stack,
                                          const std::optional<YearMonth>& date, StackFeature f);

} // namespace archipelago::core
