// Measured iteration times read from a training framework's log, for a runs file
// (`archipelago-cli measure`, docs/calibration.md). Formats, from the frameworks' sources:
// - Megatron-LM (megatron/training/training.py, training_log): "iteration N/ M | ... | elapsed
//   time per iteration (ms): X | ...", printed by the last rank every --log-interval
//   iterations, X the mean over that interval (evaluation and checkpoint saves excluded); and
//   the argument dump of validate_args ("------------------------ arguments ----...", then
//   "  name ....... value" lines, "---- end of arguments ----");
// - NeMo 2 (nemo/utils/exp_manager.py TimingCallback, printed by
//   nemo/lightning/pytorch/callbacks/progress_printer.py): "Training epoch E, iteration
//   N/M | ... | train_step_timing in s: X", and NeMo 1's progress bar ", train_step_timing in
//   s=X" (tqdm updates separated by carriage returns);
// - TorchTitan (torchtitan/components/metrics.py): "step: N  loss: ...  tps: T  ...", T the
//   tokens per second per GPU over the last --metrics.log_freq steps; no time is printed, so
//   the iteration time is the iteration's tokens / (T x GPUs).
// Launchers prefix lines ("[rank0]:", "[default0]:") and TorchTitan colours them: the readers
// look for their markers anywhere in a line and drop ANSI escapes.
#pragma once

#include "launch/launchplan.h"
#include "validation/stackfeatures.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace archipelago::core {

struct LogSample
{
    long long iteration = 0; // as the log numbers it (-1 when it does not)
    double seconds = 0.0;    // per iteration
};

struct IterationLog
{
    std::vector<LogSample> samples; // in the log's order, one per logged step or interval
    int warmup = 0;                 // leading samples left out of the summary
    double medianS = 0.0;           // over the samples after the warm-up
    double lowS = 0.0, highS = 0.0; // their smallest and largest
    std::map<std::string, std::string> arguments; // Megatron-LM's argument dump, when printed
    // The month the job ran, from the timing lines' timestamps ("[2025-03-04 10:00:00]", NeMo's
    // "[NeMo I 2025-03-04 ...", TorchTitan's "2025-03-04 10:00:00,000"); none when unstamped.
    std::optional<YearMonth> month;
    std::string error; // why there is no measurement; empty when there is
    bool ok() const { return error.empty(); }
};

// Leading samples left out: the first logged values include start-up (compilation, NCCL and
// CUDA-graph warm-up, and in Megatron-LM the first interval's average holds iteration 1), so
// the first tenth, at least two, are dropped; at least two must remain.
inline constexpr int kMinWarmupSamples = 2;

// `tokensPerIteration` and `gpus` convert TorchTitan's tokens per second per GPU (the others
// ignore them).
IterationLog readIterationLog(Framework framework, std::string_view text, double tokensPerIteration,
                              long long gpus);

} // namespace archipelago::core
