// The keys of the published-runs format (../shared/validation/README.md) and of the
// `validate --json` report, each spelled once: the reader and the writer both use these names.
#pragma once

namespace archipelago::core::runkeys {

// Document.
inline constexpr const char* kFormat = "format";
inline constexpr const char* kVersion = "version";
inline constexpr const char* kAbout = "about";
inline constexpr const char* kRuns = "runs";

// Run.
inline constexpr const char* kId = "id";
inline constexpr const char* kSource = "source";
inline constexpr const char* kNotes = "notes";
inline constexpr const char* kModel = "model";
inline constexpr const char* kTraining = "training";
inline constexpr const char* kSystem = "system";
inline constexpr const char* kMeasured = "measured";
// An extension of this program's: the run's own scenario, which is evaluated as it is
// (validation/measuredrun.h); absent from published runs.
inline constexpr const char* kScenario = "scenario";

// model.
inline constexpr const char* kLayers = "layers";
inline constexpr const char* kHidden = "hidden";
inline constexpr const char* kHeads = "heads";
inline constexpr const char* kKvHeads = "kv_heads";
inline constexpr const char* kFfnHidden = "ffn_hidden";
inline constexpr const char* kFfnActivation = "ffn_activation";
inline constexpr const char* kVocab = "vocab";
inline constexpr const char* kSeqLen = "seq_len";

// training.
inline constexpr const char* kGlobalBatch = "global_batch";
inline constexpr const char* kMicroBatch = "micro_batch";
inline constexpr const char* kTp = "tp";
inline constexpr const char* kPp = "pp";
inline constexpr const char* kDp = "dp";
inline constexpr const char* kCp = "cp";
inline constexpr const char* kEp = "ep";
inline constexpr const char* kVirtualStages = "virtual_stages";
inline constexpr const char* kSequenceParallel = "sequence_parallel";
inline constexpr const char* kRecompute = "recompute";
inline constexpr const char* kPrecision = "precision";
inline constexpr const char* kSoftware = "software";
inline constexpr const char* kSoftwareDate = "software_date";
inline constexpr const char* kOptimizations = "optimizations";

// system.
inline constexpr const char* kAccelerator = "accelerator";
inline constexpr const char* kPeakDenseTflops = "peak_dense_tflops";
inline constexpr const char* kHbmGib = "hbm_gib";
inline constexpr const char* kGpus = "gpus";
inline constexpr const char* kGpusPerNode = "gpus_per_node";
inline constexpr const char* kScaleUpGBps = "scale_up_GBps_per_direction";
inline constexpr const char* kScaleOutGbps = "scale_out_Gbps_per_gpu";
inline constexpr const char* kFabric = "fabric";
inline constexpr const char* kFabricKind = "kind";
inline constexpr const char* kTiers = "tiers";
inline constexpr const char* kOversubscription = "oversubscription";
inline constexpr const char* kPodGpus = "pod_gpus";
inline constexpr const char* kPodOversubscription = "pod_oversubscription";

// measured.
inline constexpr const char* kIterationTimeS = "iteration_time_s";

// The `validate --json` report (ARCHITECTURE.md section 6).
inline constexpr const char* kMeasuredS = "measured_s";
inline constexpr const char* kPredictedS = "predicted_s";
inline constexpr const char* kError = "error";
inline constexpr const char* kAssumptions = "assumptions";
inline constexpr const char* kWarnings = "warnings";
inline constexpr const char* kEvaluated = "evaluated";
inline constexpr const char* kReason = "reason";
inline constexpr const char* kMeanAbsError = "mean_abs_error";
inline constexpr const char* kMaxAbsError = "max_abs_error";

} // namespace archipelago::core::runkeys
