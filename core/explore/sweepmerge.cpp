#include "explore/sweepmerge.h"

#include "explore/paretofront.h"
#include "explore/sweep.h"
#include "explore/sweepkeys.h"
#include "io/evaluationjson.h"
#include "io/jsondocument.h"
#include "io/scenarioio.h"
#include "io/textfile.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>
#include <map>

namespace archipelago::core {

namespace {

using json = nlohmann::json;

// The keys of sweepResultToJson, which the merge reads and rewrites.
using namespace sweepkeys;

constexpr int kMaxShards = 100000;

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

std::string describe(const json& value)
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
        return v->get<double>();
    }

private:
    const std::string& m_file;
    std::vector<Diagnostic>& m_errors;
};

// A point of a shard: its figures in a SweepPoint, so that the core's own ParetoFront and
// rankedBefore order it, and its JSON, copied to the output as it is.
struct MergePoint
{
    SweepPoint figures;
    const json* value = nullptr;
};

std::optional<MergePoint> readPoint(const Reporter& r, const json& p, const std::string& pointer)
{
    MergePoint out;
    out.value = &p;
    const std::optional<std::uint64_t> index = r.count(p, pointer, kIndex);
    const json* ev = r.object(p, pointer, kEvaluation);
    const std::string evPointer = childPointer(pointer, kEvaluation);
    std::optional<double> time, train, memory;
    if (ev) {
        time = r.figure(*ev, evPointer, evalkeys::kIterationTimeS);
        train = r.figure(*ev, evPointer, evalkeys::kTimeToTrainS);
        memory = r.figure(*ev, evPointer, evalkeys::kMemoryPeakGib);
    }
    const std::optional<double> capex = r.figure(p, pointer, evalkeys::kNetworkCapexUsd);
    const std::optional<double> cost = r.figure(p, pointer, kTotalCostUsd);
    if (!index || !time || !train || !memory || !capex || !cost)
        return std::nullopt;
    out.figures.point.index = *index;
    out.figures.evaluation.iterationTimeS = *time;
    out.figures.evaluation.timeToTrainS = *train;
    out.figures.evaluation.memoryPeakGib = *memory;
    out.figures.networkCapexUsd = *capex;
    out.figures.totalCostUsd = *cost;
    return out;
}

// One shard's JSON, checked on its own.
struct Shard
{
    const SweepShardJson* source = nullptr;
    int index = 0;
    int count = 1;
    std::uint64_t spacePoints = 0;
    std::uint64_t fasterThanBase = 0;
    std::uint64_t top = 0;
    const json* inputs = nullptr;
    const json* counts = nullptr;
    const json* base = nullptr;
    std::array<std::vector<MergePoint>, kSweepObjectives> topBy;
    std::array<std::vector<MergePoint>, kFrontSpecs.size()> fronts;
};

// The points of shard `s` in the array at `parent`/`key`, each checked to be of the shard.
void readPoints(const Reporter& r, const Shard& s, const json& parent, const std::string& pointer,
                const char* key, std::vector<MergePoint>& out)
{
    const json* list = r.array(parent, pointer, key);
    if (!list)
        return;
    const std::string listPointer = childPointer(pointer, key);
    for (std::size_t i = 0; i < list->size(); ++i) {
        const std::string p = childPointer(listPointer, i);
        std::optional<MergePoint> point = readPoint(r, (*list)[i], p);
        if (!point)
            continue;
        const std::uint64_t index = point->figures.point.index;
        const auto n = static_cast<std::uint64_t>(s.count);
        if (index >= s.spacePoints || index % n != static_cast<std::uint64_t>(s.index)) {
            r.error(childPointer(p, kIndex), "point " + std::to_string(index) +
                                                 " is not of shard " + std::to_string(s.index) +
                                                 "/" + std::to_string(s.count) + " of a space of " +
                                                 std::to_string(s.spacePoints) + " points");
            continue;
        }
        out.push_back(std::move(*point));
    }
}

// The points of index `index` modulo `count` among `space`.
std::uint64_t pointsOfShard(std::uint64_t space, std::uint64_t index, std::uint64_t count)
{
    return space > index ? (space - index - 1) / count + 1 : 0;
}

std::optional<Shard> readShard(const SweepShardJson& source, std::vector<Diagnostic>& errors)
{
    const std::size_t errorsBefore = errors.size();
    const Reporter r(source.file, errors);
    const json& root = source.json;
    Shard s;
    s.source = &source;
    if (!root.is_object()) {
        r.error({}, "expected the JSON object of `sweep -o`, got " + describe(root));
        return std::nullopt;
    }
    if (const json* shard = r.object(root, {}, kShard)) {
        const std::optional<std::uint64_t> count = r.count(*shard, "/shard", kCount);
        const std::optional<std::uint64_t> index = r.count(*shard, "/shard", kIndex);
        if (count && (*count < 1 || *count > kMaxShards))
            r.error("/shard/count",
                    "expected a shard count in 1..100000, got " + std::to_string(*count));
        else if (count && index && *index >= *count)
            r.error("/shard/index", "expected an index in 0.." + std::to_string(*count - 1) +
                                        ", got " + std::to_string(*index));
        else if (count && index) {
            s.count = static_cast<int>(*count);
            s.index = static_cast<int>(*index);
        }
    }
    if (const auto cancelled = root.find(kCancelled);
        cancelled != root.end() && *cancelled != json(false))
        r.error("/cancelled", "expected false, got " + describe(*cancelled) +
                                  ": the shard stopped early, run it again");
    s.inputs = r.object(root, {}, kInputs);
    if (s.inputs)
        s.top = r.count(*s.inputs, "/inputs", kTop).value_or(0);
    s.counts = r.object(root, {}, kCounts);
    if (s.counts) {
        s.spacePoints = r.count(*s.counts, "/counts", kSpacePoints).value_or(0);
        const std::optional<std::uint64_t> considered = r.count(*s.counts, "/counts", kConsidered);
        const std::uint64_t expected =
            pointsOfShard(s.spacePoints, static_cast<std::uint64_t>(s.index),
                          static_cast<std::uint64_t>(s.count));
        if (considered && errors.size() == errorsBefore && *considered != expected)
            r.error("/counts/considered",
                    "expected " + std::to_string(expected) + " (the points of index " +
                        std::to_string(s.index) + " modulo " + std::to_string(s.count) + " among " +
                        std::to_string(s.spacePoints) + "), got " + std::to_string(*considered));
    }
    s.fasterThanBase = r.count(root, {}, kFasterThanBase).value_or(0);
    s.base = r.object(root, {}, kBase);
    if (errors.size() != errorsBefore)
        return std::nullopt; // the points are checked against the shard and the space
    if (const json* byObjective = r.object(root, {}, kTopByObjective)) {
        for (std::size_t k = 0; k < kSweepObjectives; ++k)
            readPoints(r, s, *byObjective, "/top_by_objective",
                       toString(static_cast<SweepObjective>(k)), s.topBy[k]);
        for (const auto& [name, list] : byObjective->items()) {
            bool known = false;
            for (std::size_t k = 0; k < kSweepObjectives; ++k)
                known = known || name == toString(static_cast<SweepObjective>(k));
            if (!known)
                r.error(childPointer("/top_by_objective", name),
                        "an objective this program cannot merge (written by another version?)");
        }
    }
    if (const json* fronts = r.object(root, {}, kFronts)) {
        for (std::size_t f = 0; f < kFrontSpecs.size(); ++f)
            readPoints(r, s, *fronts, "/fronts", kFrontSpecs[f].name, s.fronts[f]);
        // A front this merge would copy from one shard instead of merging.
        for (const auto& item : fronts->items()) {
            const std::string& name = item.key(); // a plain name: clang captures no bindings
            if (std::none_of(kFrontSpecs.begin(), kFrontSpecs.end(),
                             [&](const FrontSpec& f) { return name == f.name; }))
                r.error(childPointer("/fronts", name),
                        "a front this program cannot merge (written by another version?)");
        }
    }
    if (errors.size() != errorsBefore)
        return std::nullopt;
    return s;
}

// The sum of the shards' counts, key by key (a reason added to the counts later merges too);
// space_points must be the same in every shard.
std::optional<json> mergeCounts(const std::vector<Shard>& shards, std::vector<Diagnostic>& errors)
{
    const std::size_t errorsBefore = errors.size();
    const Shard& first = shards.front();
    json out = *first.counts;
    for (auto& [key, value] : out.items()) {
        if (key == kSpacePoints)
            continue;
        if (value.is_object())
            for (auto& [sub, v] : value.items())
                v = std::uint64_t{0};
        else
            value = std::uint64_t{0};
    }
    for (const Shard& s : shards) {
        const Reporter r(s.source->file, errors);
        const json& counts = *s.counts;
        for (const auto& [key, value] : counts.items())
            if (!out.contains(key))
                r.error(childPointer("/counts", key),
                        "not a count of " + first.source->file + ": another program version?");
        if (s.spacePoints != first.spacePoints)
            r.error("/counts/space_points", "expected " + std::to_string(first.spacePoints) +
                                                " as in " + first.source->file + ", got " +
                                                std::to_string(s.spacePoints) +
                                                ": not a shard of the same sweep");
        for (auto& [key, total] : out.items()) {
            if (key == kSpacePoints)
                continue;
            const std::string pointer = childPointer("/counts", key);
            const auto it = counts.find(key);
            if (it == counts.end()) {
                r.error(pointer, "expected a count as in " + first.source->file + ", missing");
                continue;
            }
            if (!total.is_object()) {
                if (const std::optional<std::uint64_t> n = r.count(*it, pointer))
                    total = total.get<std::uint64_t>() + *n;
                continue;
            }
            if (!it->is_object()) {
                r.error(pointer, "expected an object, got " + describe(*it));
                continue;
            }
            for (const auto& [sub, value] : it->items())
                if (!total.contains(sub))
                    r.error(childPointer(pointer, sub),
                            "not a count of " + first.source->file + ": another program version?");
            for (auto& [sub, subTotal] : total.items()) {
                const auto jt = it->find(sub);
                const std::string subPointer = childPointer(pointer, sub);
                if (jt == it->end())
                    r.error(subPointer,
                            "expected a count as in " + first.source->file + ", missing");
                else if (const std::optional<std::uint64_t> n = r.count(*jt, subPointer))
                    subTotal = subTotal.get<std::uint64_t>() + *n;
            }
        }
    }
    if (errors.size() != errorsBefore)
        return std::nullopt;
    return out;
}

// Every shard of the same sweep: the same count, inputs (but top) and base; every index once.
void checkSameSweep(const std::vector<Shard>& shards, std::vector<Diagnostic>& errors)
{
    const Shard& first = shards.front();
    std::vector<const Shard*> byIndex(static_cast<std::size_t>(first.count), nullptr);
    for (const Shard& s : shards) {
        const Reporter r(s.source->file, errors);
        if (s.count != first.count) {
            r.error("/shard/count", "expected " + std::to_string(first.count) + " as in " +
                                        first.source->file + ", got " + std::to_string(s.count) +
                                        ": not a shard of the same sweep");
            continue;
        }
        const json& a = *first.inputs;
        const json& b = *s.inputs;
        for (const auto* keys : {&a, &b})
            for (const auto& [key, value] : keys->items()) {
                if (key == kTop || (keys == &b && a.contains(key)))
                    continue;
                const auto ia = a.find(key);
                const auto ib = b.find(key);
                const std::string pointer = childPointer("/inputs", key);
                if (ib == b.end())
                    r.error(pointer, "expected " + describe(*ia) + " as in " + first.source->file +
                                         ", missing");
                else if (ia == a.end() || *ia != *ib)
                    r.error(pointer, "expected " + (ia == a.end() ? "no such key" : describe(*ia)) +
                                         " as in " + first.source->file + ", got " + describe(*ib) +
                                         ": a different scenario, space or program version");
            }
        if (*s.base != *first.base)
            r.error("/base", "differs from the base of " + first.source->file +
                                 ": a different scenario or program version");
        const Shard*& slot = byIndex[static_cast<std::size_t>(s.index)];
        if (slot)
            r.error("/shard/index", "shard " + std::to_string(s.index) + "/" +
                                        std::to_string(s.count) + " is given twice (also " +
                                        slot->source->file + ")");
        else
            slot = &s;
    }
    std::string missing;
    std::size_t missingCount = 0;
    for (std::size_t i = 0; i < byIndex.size(); ++i)
        if (!byIndex[i] && ++missingCount <= 20)
            missing += (missing.empty() ? "" : ", ") + std::to_string(i);
    if (missingCount > 0)
        errors.push_back({Diagnostic::Severity::Error, first.source->file, "/shard/count",
                          "shards missing: " + missing + (missingCount > 20 ? ", ..." : "") + " (" +
                              std::to_string(missingCount) + " of the " +
                              std::to_string(first.count) + "; merge needs every shard's output)"});
}

json toArray(const std::vector<MergePoint>& points)
{
    json a = json::array();
    for (const MergePoint& p : points)
        a.push_back(*p.value);
    return a;
}

json mergeTop(const std::vector<Shard>& shards, std::size_t k, std::size_t top)
{
    std::vector<MergePoint> all;
    for (const Shard& s : shards)
        all.insert(all.end(), s.topBy[k].begin(), s.topBy[k].end());
    const auto objective = static_cast<SweepObjective>(k);
    std::sort(all.begin(), all.end(), [objective](const MergePoint& a, const MergePoint& b) {
        return rankedBefore(objective, a.figures, b.figures);
    });
    if (all.size() > top)
        all.resize(top);
    return toArray(all);
}

// The union inserted in odometer order, as the unsharded sweep inserts every point.
json mergeFront(const std::vector<Shard>& shards, std::size_t f)
{
    std::map<std::uint64_t, const MergePoint*> byIndex;
    for (const Shard& s : shards)
        for (const MergePoint& p : s.fronts[f])
            byIndex.emplace(p.figures.point.index, &p);
    ParetoFront front(kFrontSpecs[f].x, kFrontSpecs[f].y);
    for (const auto& [index, p] : byIndex)
        front.insert(p->figures);
    json a = json::array();
    for (const SweepPoint& p : front.sorted())
        a.push_back(*byIndex.at(p.point.index)->value);
    return a;
}

SweepMergeResult mergeChecked(const std::vector<SweepShardJson>& sources, std::optional<int> top)
{
    SweepMergeResult result;
    if (sources.empty()) {
        result.errors.push_back({Diagnostic::Severity::Error, {}, {}, "no shard to merge"});
        return result;
    }
    std::vector<Shard> shards;
    for (const SweepShardJson& source : sources)
        if (std::optional<Shard> s = readShard(source, result.errors))
            shards.push_back(std::move(*s));
    if (!result.errors.empty())
        return result;
    checkSameSweep(shards, result.errors);
    if (!result.errors.empty())
        return result;
    std::optional<json> counts = mergeCounts(shards, result.errors);
    // The merged lists are as long as the shortest the shards kept, or shorter on request.
    const Shard* shortest = &shards.front();
    for (const Shard& s : shards)
        if (s.top < shortest->top)
            shortest = &s;
    if (top && static_cast<std::uint64_t>(*top) > shortest->top)
        result.errors.push_back({Diagnostic::Severity::Error, shortest->source->file, "/inputs/top",
                                 "the shard kept the top " + std::to_string(shortest->top) +
                                     " per objective, fewer than --top " + std::to_string(*top) +
                                     ": run the shards with --top " + std::to_string(*top) +
                                     " or more"});
    if (!counts || !result.errors.empty())
        return result;
    const std::size_t n = top ? static_cast<std::size_t>(*top) : shortest->top;

    std::uint64_t faster = 0;
    for (const Shard& s : shards)
        faster += s.fasterThanBase;
    json out = shards.front().source->json;
    out[kCancelled] = false;
    out[kCounts] = std::move(*counts);
    out[kFasterThanBase] = faster;
    out[kBaseRank] = faster + 1;
    out[kShard] = {{kIndex, 0}, {kCount, 1}};
    out[kInputs][kTop] = n;
    json byObjective = json::object();
    for (std::size_t k = 0; k < kSweepObjectives; ++k)
        byObjective[toString(static_cast<SweepObjective>(k))] = mergeTop(shards, k, n);
    out[kTop] = byObjective[toString(SweepObjective::IterationTime)];
    out[kTopByObjective] = std::move(byObjective);
    json fronts = json::object();
    for (std::size_t f = 0; f < kFrontSpecs.size(); ++f)
        fronts[kFrontSpecs[f].name] = mergeFront(shards, f);
    out[kFronts] = std::move(fronts);
    result.merged = std::move(out);
    result.shardCount = shards.front().count;
    return result;
}

} // namespace

std::uint64_t fnv1a64(std::string_view bytes)
{
    std::uint64_t h = 0xcbf29ce484222325ull; // offset basis
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 0x100000001b3ull; // FNV prime
    }
    return h;
}

std::string fingerprintHex(std::uint64_t hash)
{
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(hash));
    return buf;
}

std::optional<nlohmann::json> sweepInputsToJson(const Scenario& base, const std::string& spaceFile,
                                                int top, DiagnosticSink& sink)
{
    std::string space = "default";
    if (!spaceFile.empty()) {
        const std::optional<std::string> text = readTextFile(spaceFile, sink, "a search space");
        Json parsed;
        if (!text || !parseJsonDocument(*text, parsed, sink))
            return std::nullopt;
        // Sorted keys, no spaces: the same space whatever its layout in the file.
        space = json(parsed).dump(-1, ' ', false, json::error_handler_t::replace);
    }
    return json{{"scenario_fnv1a64", fingerprintHex(fnv1a64(serializeScenario(base)))},
                {"space_fnv1a64", fingerprintHex(fnv1a64(space))},
                {kTop, std::max(0, top)}};
}

std::optional<nlohmann::json> readSweepJson(const std::string& path, DiagnosticSink& sink)
{
    const std::optional<std::string> text =
        readTextFile(path, sink, "the JSON output of `archipelago-cli sweep -o`");
    Json parsed;
    if (!text || !parseJsonDocument(*text, parsed, sink))
        return std::nullopt;
    return json(parsed);
}

SweepMergeResult mergeSweepShards(const std::vector<SweepShardJson>& shards, std::optional<int> top)
{
    // The checks above guard every access; this is for what they could have missed.
    try {
        return mergeChecked(shards, top);
    } catch (const std::exception& e) {
        SweepMergeResult result;
        result.errors.push_back({Diagnostic::Severity::Error,
                                 shards.empty() ? std::string() : shards.front().file,
                                 {},
                                 std::string("unexpected JSON: ") + e.what()});
        return result;
    }
}

} // namespace archipelago::core
