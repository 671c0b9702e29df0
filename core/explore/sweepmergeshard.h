// The shard side of merging a sharded sweep (explore/sweepmerge.h): one shard's JSON read and
// checked on its own, its points with the figures the merge ranks them on. Internal to the merge.
#pragma once

#include "explore/paretofront.h"
#include "explore/sweep.h"
#include "explore/sweepkeys.h"
#include "io/diagnosticsink.h"
#include "io/jsondocument.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace archipelago::core::sweepmerge {

using json = nlohmann::json;

// The keys of sweepResultToJson, which the merge reads and rewrites.
using namespace sweepkeys;

inline constexpr int kMaxShards = 100000;

// The fronts of sweepResultToJson, with the objectives explore/sweep.cpp builds them on.
struct FrontSpec
{
    const char* name;
    ParetoFront::Objective x;
    ParetoFront::Objective y;
};
constexpr std::array<FrontSpec, 3> kFrontSpecs = {
    {{kTimeVsCapex, &frontaxis::iterationTimeS, &frontaxis::networkCapexUsd},
     {kTimeVsMemory, &frontaxis::iterationTimeS, &frontaxis::memoryPeakGib},
     {kTrainTimeVsCost, &frontaxis::timeToTrainS, &frontaxis::totalCostUsd}}};

inline std::string describe(const json& value)
{
    return describeJson(Json(value));
}

// Reports into one file's diagnostics.
class Reporter
{
public:
    Reporter(const std::string& file, std::vector<Diagnostic>& errors)
        : m_file(file)
        , m_errors(errors)
    {}

    void error(const std::string& pointer, const std::string& message) const
    {
        if (m_errors.size() < DiagnosticSink::kMaxKept)
            m_errors.push_back({Diagnostic::Severity::Error, m_file, pointer, message});
    }
    const std::string& file() const { return m_file; }

    // The member `key` of the object `parent` at `pointer`, or null after reporting it.
    const json* member(const json& parent, const std::string& pointer, const char* key,
                       const char* expected) const
    {
        if (!parent.is_object()) {
            error(pointer, "expected an object, got " + describe(parent));
            return nullptr;
        }
        const auto it = parent.find(key);
        if (it == parent.end()) {
            error(childPointer(pointer, key), std::string("expected ") + expected + ", missing");
            return nullptr;
        }
        return &*it;
    }

    const json* object(const json& parent, const std::string& pointer, const char* key) const
    {
        const json* v = member(parent, pointer, key, "an object");
        if (v && !v->is_object()) {
            error(childPointer(pointer, key), "expected an object, got " + describe(*v));
            return nullptr;
        }
        return v;
    }

    const json* array(const json& parent, const std::string& pointer, const char* key) const
    {
        const json* v = member(parent, pointer, key, "an array");
        if (v && !v->is_array()) {
            error(childPointer(pointer, key), "expected an array, got " + describe(*v));
            return nullptr;
        }
        return v;
    }

    std::optional<std::uint64_t> count(const json& value, const std::string& pointer) const
    {
        if (!value.is_number_unsigned()) {
            error(pointer, "expected a non-negative integer, got " + describe(value));
            return std::nullopt;
        }
        return value.get<std::uint64_t>();
    }

    std::optional<std::uint64_t> count(const json& parent, const std::string& pointer,
                                       const char* key) const
    {
        const json* v = member(parent, pointer, key, "a non-negative integer");
        return v ? count(*v, childPointer(pointer, key)) : std::nullopt;
    }

    // A figure; null (how nlohmann writes a value that is not finite) reads as +infinity.
    std::optional<double> figure(const json& parent, const std::string& pointer,
                                 const char* key) const
    {
        const json* v = member(parent, pointer, key, "a number");
        if (!v)
            return std::nullopt;
        if (v->is_null())
            return std::numeric_limits<double>::infinity();
        if (!v->is_number()) {
            error(childPointer(pointer, key), "expected a number, got " + describe(*v));
            return std::nullopt;
        }
        // Times, memory and money: never below zero.
        if (!(v->get<double>() >= 0.0)) {
            error(childPointer(pointer, key),
                  "expected a non-negative number, got " + describe(*v));
            return std::nullopt;
        }
        return v->get<double>();
    }

private:
    const std::string& m_file;
    std::vector<Diagnostic>& m_errors;
};

// A point's figures and what the fronts and top lists rank it on, worked out once with the
// functions the sweep ranks on (frontaxis, objectiveValue).
struct Figures
{
    std::uint64_t index = 0;
    double iterationTimeS = 0.0;
    std::array<double, kSweepObjectives> objective{};
    std::array<FrontCandidate, kFrontSpecs.size()> front{};
};

// A point of the shard being added: its JSON is the shard's, copied if the merge keeps it.
struct MergePoint
{
    Figures figures;
    const json* value = nullptr;
};

// A point the merged result holds, with its own copy of the JSON.
struct KeptPoint
{
    Figures figures;
    json value;
    std::size_t bytes = 0; // footprintBytes(value)
};

// What a JSON value holds in memory, estimated: 128 bytes a value (the value, its node in its
// object's tree, the allocator's overhead) plus the characters of its strings and keys. Strings
// count, so that a few points with long strings weigh what many small points weigh.
inline std::size_t footprintBytes(const json& j)
{
    std::size_t n = 128;
    if (j.is_string())
        n += j.get_ref<const std::string&>().size();
    else if (j.is_object())
        for (auto it = j.begin(); it != j.end(); ++it)
            n += it.key().size() + footprintBytes(*it);
    else if (j.is_array())
        for (const json& child : j)
            n += footprintBytes(child);
    return n;
}

inline bool addChecked(std::uint64_t& total, std::uint64_t n)
{
    return !__builtin_add_overflow(total, n, &total);
}

// One shard's JSON, checked on its own.
struct Shard
{
    int index = 0;
    int count = 1;
    std::uint64_t spacePoints = 0;
    std::uint64_t considered = 0;
    std::uint64_t feasible = 0;
    std::uint64_t fasterThanBase = 0;
    std::uint64_t top = 0;
    const json* inputs = nullptr;
    const json* counts = nullptr;
    const json* base = nullptr;
    std::array<std::vector<MergePoint>, kSweepObjectives> topBy;
    std::array<std::vector<MergePoint>, kFrontSpecs.size()> fronts;
};

// One shard's JSON checked on its own: its shard, counts, inputs and base, then its points
// (each of its shard). Nullopt after reporting to `errors`; the Shard points into `root`.
std::optional<Shard> readShard(const std::string& file, const json& root,
                               std::vector<Diagnostic>& errors);

} // namespace archipelago::core::sweepmerge
