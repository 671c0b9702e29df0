// Merging the JSON outputs of a sharded sweep (`archipelago-cli sweep --shard I/N`, then
// `archipelago-cli merge`; docs/explore.md, README "Sharding a sweep"). A shard considers the
// points whose odometer index is I modulo N, so every point lies in exactly one shard and:
//   * the counts add up (the space size is the same in every shard);
//   * base_rank = 1 + the sum of the shards' faster_than_base;
//   * each Pareto front of the union holds only points of the shards' fronts (a point that no
//     point of the space dominates is not dominated inside its shard either), so the front of
//     the union of the shards' fronts, inserted in odometer order with ParetoFront's rule, is
//     the unsharded front (paretoFrontOf finds it in O(n log n)); and since a point dominated,
//     or equalled by a lower index, within some points stays so among more, the shards can be
//     folded in one at a time, each front reduced to the front of the union so far;
//   * each top-N list of the union is the first N of the union of the shards' lists in the
//     objective's order (rankedBefore).
// The merge works on the JSON only: a point's knobs are opaque, only its index and the figures
// the fronts and lists rank on are read, so it does not depend on the space's dimensions.
#pragma once

#include "io/diagnosticsink.h"
#include "model/scenario.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace archipelago::core {

// 64-bit FNV-1a (Fowler, Noll and Vo; the offset basis and prime of
// http://www.isthe.com/chongo/tech/comp/fnv/), written as 16 lower-case hex digits.
std::uint64_t fnv1a64(std::string_view bytes);
std::string fingerprintHex(std::uint64_t hash);

// The scenario's fingerprint in a sweep's "inputs" (scenario_fnv1a64): its canonical form
// (serializeScenario). The sweep saved in the file is not part of the scenario, so saving a
// sweep into the file does not make the file another design.
std::string scenarioFingerprint(const Scenario& scenario);

// The "inputs" object of a sweep's JSON: what the shards of one sweep must share. The scenario
// is fingerprinted in its canonical form (serializeScenario), the space file as its JSON with
// sorted keys and no spaces (the default space: "default", which the scenario determines);
// `top` is the length of each top list the run kept. Nullopt, after reporting to `sink`, when
// the space file cannot be read again.
std::optional<nlohmann::json> sweepInputsToJson(const Scenario& base, const std::string& spaceFile,
                                                int top, DiagnosticSink& sink);

// A sweep's JSON output read back (bounded, errors with their JSON pointer), or nullopt after
// reporting to `sink`.
std::optional<nlohmann::json> readSweepJson(const std::string& path, DiagnosticSink& sink);

struct SweepShardJson
{
    std::string file; // for messages
    nlohmann::json json;
};

struct SweepMergeResult
{
    std::optional<nlohmann::json> merged; // in the format of an unsharded sweep
    std::vector<Diagnostic> errors;       // each names the file and the JSON pointer
    int shardCount = 0;
};

// What the merged result may hold at most, in estimated bytes (128 a JSON value plus the
// characters of strings and keys): the points of its fronts and top lists plus the first
// shard's other keys. The fronts of every shard of a real sweep together are far smaller, while
// a forged set of shards whose fronts never dominate each other is refused before it exhausts
// memory (measured: three shards with 100,000 minimal points on each of the three fronts, 2.4
// million JSON values, about 330 MB estimated, merge in 550 MB of resident memory).
inline constexpr std::size_t kMaxMergedBytes = std::size_t{512} << 20;

// Merges the shards of one sweep, given in any order, one at a time: each is checked on its own
// (its counts add up, its points are of its shard) and against the first (the same sweep), then
// folded into the merged fronts, top lists and counts, so that its JSON can be dropped before
// the next is read. All N shards, each once, with the same inputs (but "top"), space size and
// base. `top`: the length of the merged top lists, at most the shortest the shards kept (their
// default). Never throws but std::bad_alloc.
class SweepMerger
{
public:
    explicit SweepMerger(std::optional<int> top = std::nullopt,
                         std::size_t maxBytes = kMaxMergedBytes);
    ~SweepMerger();
    SweepMerger(const SweepMerger&) = delete;
    SweepMerger& operator=(const SweepMerger&) = delete;

    // Checks and folds one shard's JSON (not kept); false when it is refused.
    bool add(const std::string& file, const nlohmann::json& shard);
    // Reads `path` with readSweepJson, adds it and drops its JSON; false when it is refused.
    bool addFile(const std::string& path);
    // The merged result once every shard is added, or the errors of all of them.
    SweepMergeResult finish();

private:
    struct State;
    std::unique_ptr<State> m;
};

// Merges shards that are all in memory (SweepMerger, one after the other).
SweepMergeResult mergeSweepShards(const std::vector<SweepShardJson>& shards,
                                  std::optional<int> top = std::nullopt);

} // namespace archipelago::core
