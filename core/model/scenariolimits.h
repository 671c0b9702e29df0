// Valid ranges of scenario fields, shared by the reader (its "expected ..." wording) and the
// semantic checks (the ranges themselves), so that both say the same thing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

namespace archipelago::core {

// Upper bounds that keep any file from exhausting memory or time.
inline constexpr std::int64_t kMaxGpus = 100'000'000;
inline constexpr int kMaxObjects = 100'000; // datacenters, pods, links, shards, ...
inline constexpr std::size_t kMaxFileBytes = 64u * 1024u * 1024u;

} // namespace archipelago::core

namespace archipelago::core::limits {

struct IntLimit
{
    int min;
    int max;
    std::string_view expected;
    bool contains(long long v) const { return v >= min && v <= max; }
};

struct NumberLimit
{
    double min;
    double max;
    bool minExclusive;
    std::string_view expected;
    bool contains(double v) const
    {
        // Written so that NaN is outside every range.
        return (minExclusive ? v > min : v >= min) && v <= max;
    }
};

inline constexpr int kIntMax = std::numeric_limits<int>::max();
inline constexpr double kHuge = std::numeric_limits<double>::max();

inline constexpr IntLimit kPositive{1, kIntMax, "a positive integer"};
inline constexpr IntLimit kNonNegative{0, kIntMax, "a non-negative integer"};
inline constexpr IntLimit kId{0, kIntMax, "a non-negative integer id"};
inline constexpr IntLimit kTiers{2, 3, "2 or 3"};
inline constexpr IntLimit kNicsPerGpu{1, 16, "an integer in 1..16"};
// Beyond the C+L band at 25 GHz spacing; a bound against nonsense, not a physical limit.
inline constexpr IntLimit kWavelengths{1, 4096, "an integer in 1..4096"};
inline constexpr IntLimit kConnections{1, 1'000'000, "an integer in 1..1000000"};
// The pipeline simulation runs pp*v stages x m micro-batches: bound both so that no file makes
// an evaluation run for hours.
inline constexpr IntLimit kLayers{1, 10'000, "an integer in 1..10000"};
inline constexpr IntLimit kGlobalBatch{1, 10'000'000, "an integer in 1..10000000"};
inline constexpr IntLimit kZeroStage{0, 3, "an integer in 0..3"};
inline constexpr IntLimit kExtraInFlight{0, 1024, "an integer in 0..1024"};

inline constexpr NumberLimit kAnyNumber{-kHuge, kHuge, false, "a number"};
inline constexpr NumberLimit kPositiveNumber{0.0, kHuge, true, "a positive number"};
inline constexpr NumberLimit kNonNegativeNumber{0.0, kHuge, false, "a non-negative number"};
// Half the Earth's circumference: no fibre path between two sites is longer.
inline constexpr NumberLimit kDistanceKm{0.0, 20'000.0, false, "a number in [0, 20000]"};
inline constexpr NumberLimit kOversubscription{1.0, 1'000.0, false, "a number in [1, 1000]"};
inline constexpr NumberLimit kProbability{0.0, 1.0, false, "a number in [0, 1]"};
inline constexpr NumberLimit kLatencyS{0.0, 1.0, false, "a number of seconds in [0, 1]"};
// No accelerator has less than a GiB of HBM; a bound against typos such as 1e-300.
inline constexpr NumberLimit kHbmGib{1.0, 100'000.0, false, "a number of GiB in [1, 100000]"};
inline constexpr NumberLimit kFraction{0.0, 1.0, true, "a number in (0, 1]"};

} // namespace archipelago::core::limits
