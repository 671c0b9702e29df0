// Hardware catalog: accelerators, NICs, switches, optics and DCI line systems.
// The catalog is data (resources/catalog.json, compiled in); a scenario may override or
// extend any entry by name. Every figure carries a `source`; prices are editable assumptions.
#pragma once

#include "model/economics.h"
#include "model/reliability.h"

#include <optional>
#include <string>
#include <vector>

namespace archipelago::core {

// Calibrated once per accelerator generation on the tuning set (never per run).
// Used by the compute-time model: see core/computemodel.h for the formulas.
struct EfficiencyParams
{
    double gemmPeakEfficiency = 0.8; // achievable fraction of peak for large GEMMs
    double gemmHalfDim = 512.0;      // GEMM inner/outer size at which efficiency halves
    // The same two for FP8 GEMMs, where they differ from BF16 (fine-grained scaling promotes
    // the partial sums to FP32 CUDA-core registers every 128 elements of k, DeepSeek-V3 report
    // section 3.3.2, so short reductions lose more); 0 and a negative half-dim: as BF16.
    double gemmPeakEfficiencyFp8 = 0.0;
    double gemmHalfDimFp8 = -1.0;
    double memoryBoundEfficiency = 0.7; // achieved fraction of HBM bandwidth for element-wise
    // Compute slowdown per second of communication hidden under it, per traffic kind: the
    // kernels share SMs and HBM with NCCL (Rashidi et al. 2021, ASTRA-sim 2.0; Isaev et al.
    // 2023, Calculon, section 3.4). TP/CP collectives run on NVLink with many SMs and HBM
    // traffic per byte; DP and EP traffic leave through the NICs with fewer SMs, so each kind
    // is fitted on the runs that overlap it.
    double commInterference = 0.05;   // TP and CP traffic (scale-up)
    double dpCommInterference = 0.05; // gradient reduction and weight all-gather
    double epCommInterference = 0.05; // expert all-to-all
    double kernelOverheadS = 5e-6;    // fixed launch/sync overhead per kernel
    // Achieved NCCL bus bandwidth over link bandwidth, from nccl-tests rather than the tuning
    // set: all_reduce_perf on 8 GPUs of one DGX A100 reaches ~230 GB/s of 300 GB/s NVLink
    // (NVIDIA nccl-tests PERFORMANCE.md; DGX A100 user guide), ~0.77; on InfiniBand HDR/NDR
    // NICs NCCL reaches ~92% of line rate (NVIDIA DGX SuperPOD reference architecture).
    // Added by the cost model; not yet read from catalog JSON, defaults apply.
    double scaleUpBusEfficiency = 0.77;
    double scaleOutBusEfficiency = 0.92;
    // Spread of sustained speed between GPUs of one SKU (coefficient of variation, a standard
    // deviation over the mean), from power management and manufacturing: Sinha et al., SC'22,
    // "Not All GPUs Are Created Equal", measured 8% average performance variation (the range
    // over a cluster of thousands of GPUs of one SKU); a normal range over N ~ 4,000 GPUs spans
    // about 2 x 3.6 standard deviations, so 8% is a coefficient of variation of about 1%.
    // A synchronous step waits for the slowest GPU (evaluation/iterationoverhead.h).
    double gpuSpeedCv = 0.01;

    bool operator==(const EfficiencyParams&) const = default;
};

struct AcceleratorSpec
{
    std::string name;
    std::string generation;      // e.g. "ampere", "hopper", "blackwell", "cdna3"
    double peakTflopsBf16 = 0.0; // dense, no sparsity
    double peakTflopsFp8 = 0.0;  // dense; 0 when unsupported
    double hbmGib = 0.0;
    double hbmGBps = 0.0;                 // GB/s (10^9 bytes per second)
    double scaleUpGBpsPerDirection = 0.0; // NVLink / Infinity Fabric per GPU, each way
    int scaleUpDomainGpus = 8;            // native scale-up domain (8 for HGX, 72 for NVL72)
    int sms = 0;                          // streaming multiprocessors (AMD: compute units) that
                                          // GEMM tiles are spread over; 0 = no wave quantisation
    double nicGbps = 0.0;                 // default NIC per GPU, Gb/s
    double watts = 0.0;
    double priceUsd = 0.0; // editable assumption
    EfficiencyParams efficiency;
    std::string source;

    bool operator==(const AcceleratorSpec&) const = default;
};

struct NicSpec
{
    std::string name;
    double gbps = 0.0;
    double watts = 0.0;
    double priceUsd = 0.0;
    std::string source;

    bool operator==(const NicSpec&) const = default;
};

struct SwitchSpec
{
    std::string name;
    int radix = 0;         // ports
    double portGbps = 0.0; // per port
    double watts = 0.0;
    double priceUsd = 0.0;
    std::string source;

    bool operator==(const SwitchSpec&) const = default;
};

enum class OpticReach
{
    Dac,
    Aoc,
    Sr,
    Dr,
    Fr,
    Lr,
    Zr,
    ZrPlus
};

struct OpticSpec
{
    std::string name;
    OpticReach reach = OpticReach::Dr;
    double gbps = 0.0;
    double maxReachM = 0.0; // metres
    double watts = 0.0;     // per end (transceiver) or per cable for DAC/AOC
    double priceUsd = 0.0;
    bool coherent = false; // ZR/ZR+ DCI optics
    std::string source;

    bool operator==(const OpticSpec&) const = default;
};

// A DCI line system: terminals (mux/demux, ROADM) and in-line amplifiers.
struct LineSystemSpec
{
    std::string name;
    double amplifierSpacingKm = 80.0;
    double amplifierPriceUsd = 0.0;
    double amplifierWatts = 0.0;
    double terminalPriceUsd = 0.0; // per end, per fibre pair
    double terminalWatts = 0.0;
    int maxWavelengths = 64;
    double maxReachKm = 0.0;
    std::string source;

    bool operator==(const LineSystemSpec&) const = default;
};

struct Catalog
{
    std::vector<AcceleratorSpec> accelerators;
    std::vector<NicSpec> nics;
    std::vector<SwitchSpec> switches;
    std::vector<OpticSpec> optics;
    std::vector<LineSystemSpec> lineSystems;
    // Failure rates, checkpoint and restart figures (evaluation/goodput.h). A scenario's
    // override replaces the built-in one whole; none: no failures are counted.
    std::optional<ReliabilityAssumptions> reliability;
    // What an hour of the cluster costs (evaluation/runcost.h). A scenario's override replaces
    // the built-in one whole; none: the run is not priced.
    std::optional<EconomicsAssumptions> economics;

    const AcceleratorSpec* accelerator(const std::string& name) const;
    const NicSpec* nic(const std::string& name) const;
    const SwitchSpec* switchSpec(const std::string& name) const;
    const OpticSpec* optic(const std::string& name) const;
    const LineSystemSpec* lineSystem(const std::string& name) const;

    // Entries of `overrides` replace entries of the same name, the rest are appended; its
    // reliability and economics, when it has them, replace this one's.
    Catalog mergedWith(const Catalog& overrides) const;
    bool empty() const;

    bool operator==(const Catalog&) const = default;
};

const char* toString(OpticReach reach);
std::optional<OpticReach> opticReachFromString(const std::string& s);

} // namespace archipelago::core
