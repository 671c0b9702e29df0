// The release month of each feature the unpublished-knob search can choose, per training stack
// (stackfeatures.h), from each stack's own history:
//  - Megatron-LM (github.com/NVIDIA/Megatron-LM): between the v2.6 tag (2021-08) and the 23.04
//    tag its main branch was the release, so a feature dates from the merge that brought its
//    flag to megatron/arguments.py on main;
//  - NeMo (github.com/NVIDIA/NeMo): the first release tag (v1.x.0) whose GPT config
//    (examples/nlp/language_modeling/conf/megatron_gpt_config.yaml) or optimizers carry it;
//  - MegaScale: not released; Jiang et al. 2024 (MegaScale, NSDI'24) section 3 describes it on top
//    of Megatron-LM with the interleaved 1F1B schedule, sequence parallelism and the distributed
//    optimizer's overlapped reduce-scatter / all-gather (section 3.2), selective recompute as
//    inherited from Megatron-LM. The paper's last possible submission deadline (NSDI'24 fall,
//    2023-09) dates them;
//  - DeepSpeed (Megatron-DeepSpeed, github.com/microsoft/Megatron-DeepSpeed, on DeepSpeed's ZeRO):
//    the optimizer sharded by ZeRO stage 1 from DeepSpeed's first public code; Megatron-LM's
//    features from the commit of Megatron-DeepSpeed's main that took them from upstream.
#include "validation/stackfeatures.h"

#include <array>
#include <cstdio>

namespace archipelago::core {

namespace {

struct Release
{
    StackFeature feature;
    YearMonth month;
    const char* source; // the stack's history: commit, pull request or tag
};

struct StackHistory
{
    const char* stack;
    std::array<Release, 4> releases;
};

// One row per stack, one entry per feature: the table of this file.
const std::array<StackHistory, 4> kHistory = {{
    {"Megatron-LM",
     {{
         {StackFeature::InterleavedSchedule,
          {2021, 2},
          "merge 76e3fca0 'better_schedule' into main, 2021-02-17: "
          "--num-layers-per-virtual-pipeline-stage (Narayanan et al. 2021 section 2.2.2); first "
          "tag v2.5, 2021-08"},
         {StackFeature::SequenceParallel,
          {2022, 5},
          "merge 9aad9203 'sequence_parallel' into main, 2022-05-20: --sequence-parallel "
          "(Korthikanti et al. 2022)"},
         {StackFeature::SelectiveRecompute,
          {2022, 5},
          "merge 9aad9203 'sequence_parallel' into main, 2022-05-20: --recompute-granularity "
          "selective (Korthikanti et al. 2022)"},
         {StackFeature::DistributedOptimizer,
          {2022, 6},
          "merge d07d29df 'lmcafee/distrib-opt-nodupe' into main, 2022-06-08: "
          "--use-distributed-optimizer"},
     }}},
    {"NeMo",
     {{
         {StackFeature::InterleavedSchedule,
          {2022, 12},
          "PR #5025 'Add interleaved pipeline schedule to GPT' (virtual_pipeline_model_parallel_"
          "size), first in v1.13.0, 2022-12-07"},
         {StackFeature::SequenceParallel,
          {2022, 9},
          "PR #4380 'Add sequence parallelism and selective activation checkpointing', first in "
          "v1.11.0, 2022-09-08"},
         {StackFeature::SelectiveRecompute,
          {2022, 9},
          "PR #4380 (activations_checkpoint_granularity: selective), first in v1.11.0, "
          "2022-09-08"},
         {StackFeature::DistributedOptimizer,
          {2022, 10},
          "PR #4487 'Add support for Apex distributed Adam optimizer with GPT-3' "
          "(distributed_fused_adam), first in v1.12.0, 2022-10-07"},
     }}},
    {"MegaScale",
     {{
         {StackFeature::InterleavedSchedule,
          {2023, 9},
          "Jiang et al. 2024 (NSDI'24) section 3.2: interleaved 1F1B"},
         {StackFeature::SequenceParallel,
          {2023, 9},
          "Jiang et al. 2024 (NSDI'24) section 3.2: tensor/sequence parallelism"},
         {StackFeature::SelectiveRecompute,
          {2023, 9},
          "Jiang et al. 2024 (NSDI'24) section 3: built on Megatron-LM, which had it from 2022-05"},
         {StackFeature::DistributedOptimizer,
          {2023, 9},
          "Jiang et al. 2024 (NSDI'24) section 3.2: the distributed optimizer's reduce-scatter "
          "and all-gather overlapped"},
     }}},
    {"DeepSpeed",
     {{
         {StackFeature::InterleavedSchedule,
          {2021, 2},
          "Megatron-DeepSpeed holds Megatron-LM's merge 76e3fca0, 2021-02-17 (Megatron's own "
          "pipeline schedule)"},
         {StackFeature::SequenceParallel,
          {2023, 7},
          "Megatron-DeepSpeed merge 9e72d571 of upstream Megatron-LM into main, 2023-07-04"},
         {StackFeature::SelectiveRecompute,
          {2023, 7},
          "Megatron-DeepSpeed merge 9e72d571 of upstream Megatron-LM into main, 2023-07-04"},
         {StackFeature::DistributedOptimizer,
          {2020, 2},
          "ZeRO stage 1 in DeepSpeed's first public code, ec79b239, 2020-02-03 "
          "(deepspeed/pt/deepspeed_zero_optimizer.py; Rajbhandari et al. SC'20)"},
     }}},
}};

const StackHistory* history(std::string_view stack)
{
    for (const StackHistory& h : kHistory)
        if (stack == h.stack)
            return &h;
    return nullptr;
}

bool digits(std::string_view s)
{
    for (char c : s)
        if (c < '0' || c > '9')
            return false;
    return !s.empty();
}

int number(std::string_view s)
{
    int n = 0;
    for (char c : s)
        n = n * 10 + (c - '0');
    return n;
}

} // namespace

std::optional<YearMonth> parseYearMonth(std::string_view text)
{
    if (text.size() != 7 || text[4] != '-' || !digits(text.substr(0, 4)) ||
        !digits(text.substr(5, 2)))
        return std::nullopt;
    const YearMonth m{number(text.substr(0, 4)), number(text.substr(5, 2))};
    if (m.year < kFirstYear || m.month < 1 || m.month > 12)
        return std::nullopt;
    return m;
}

std::string toString(YearMonth m)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04d-%02d", m.year % 10000, m.month % 100);
    return buf;
}

std::string featureName(StackFeature f)
{
    switch (f) {
    case StackFeature::InterleavedSchedule:
        return "the interleaved schedule";
    case StackFeature::SequenceParallel:
        return "sequence parallelism";
    case StackFeature::SelectiveRecompute:
        return "selective recompute";
    case StackFeature::DistributedOptimizer:
        return "the distributed optimizer";
    }
    return "a feature";
}

bool knownStack(std::string_view stack)
{
    return history(stack) != nullptr;
}

std::optional<YearMonth> featureRelease(std::string_view stack, StackFeature f)
{
    if (const StackHistory* h = history(stack))
        for (const Release& r : h->releases)
            if (r.feature == f)
                return r.month;
    return std::nullopt;
}

std::optional<std::string> missingFeature(const std::optional<std::string>& stack,
                                          const std::optional<YearMonth>& date, StackFeature f)
{
    if (!stack || !date)
        return std::nullopt;
    const std::optional<YearMonth> release = featureRelease(*stack, f);
    if (!release || *release <= *date)
        return std::nullopt;
    return *stack + " had it from " + toString(*release) + ", the run used " + toString(*date);
}

} // namespace archipelago::core
