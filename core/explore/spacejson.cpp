#include "explore/spacejson.h"

#include "io/jsondocument.h"
#include "io/objectreader.h"
#include "io/textfile.h"
#include "model/scenariolimits.h"
#include "model/scheduletraits.h"

#include <algorithm>
#include <cmath>

namespace archipelago::core {

namespace {

constexpr int kMaxDegree = 1 << 20;
constexpr int kMaxStageSplit = 64;

// A non-empty array of at most kMaxValuesPerDimension elements, each read by `one`.
template <typename T, typename One>
void readList(ObjectReader& r, const char* key, std::vector<T>& out, One one)
{
    const Json* v = r.find(key, Need::Optional, "an array");
    if (!v)
        return;
    if (!v->is_array() || v->empty() || v->size() > kMaxValuesPerDimension) {
        r.error(key, "expected a non-empty array of at most " +
                         std::to_string(kMaxValuesPerDimension) + " values, got " +
                         describeJson(*v));
        return;
    }
    std::vector<T> values;
    bool ok = true;
    for (std::size_t i = 0; i < v->size(); ++i) {
        T value{};
        if (one((*v)[i], childPointer(r.pointerOf(key), i), value))
            values.push_back(value);
        else
            ok = false;
    }
    if (!ok)
        return;
    // Duplicates would only evaluate the same point twice.
    std::vector<T> distinct;
    for (const T& x : values)
        if (std::find(distinct.begin(), distinct.end(), x) == distinct.end())
            distinct.push_back(x);
    out = std::move(distinct);
}

bool intIn(const Json& v, const std::string& ptr, DiagnosticSink& sink, int& out, int low, int high,
           const char* expected)
{
    if (!readInt(v, ptr, sink, out, expected))
        return false;
    if (out < low || out > high) {
        sink.error(ptr, std::string("expected ") + expected + ", got " + describeJson(v));
        return false;
    }
    return true;
}

bool boolIn(const Json& v, const std::string& ptr, DiagnosticSink& sink, bool& out)
{
    if (v.is_boolean()) {
        out = v.get<bool>();
        return true;
    }
    sink.error(ptr, "expected true or false, got " + describeJson(v));
    return false;
}

template <typename E>
bool enumIn(const Json& v, const std::string& ptr, DiagnosticSink& sink, E& out,
            std::optional<E> (*fromString)(const std::string&), const char* choices)
{
    if (v.is_string())
        if (auto e = fromString(v.get<std::string>())) {
            out = *e;
            return true;
        }
    sink.error(ptr, std::string("expected one of ") + choices + ", got " + describeJson(v));
    return false;
}

// `text` (a string) as fromString reads it, or the "base" sentinel (nullopt).
template <typename E>
bool enumOrBase(const Json& v, const std::string& ptr, DiagnosticSink& sink, std::optional<E>& out,
                std::optional<E> (*fromString)(const std::string&), const std::string& choices)
{
    if (v.is_string()) {
        const std::string text = v.get<std::string>();
        if (text == spacekeys::kBase) {
            out = std::nullopt;
            return true;
        }
        if (auto e = fromString(text)) {
            out = *e;
            return true;
        }
    }
    sink.error(ptr, "expected one of " + choices + ", base, got " + describeJson(v));
    return false;
}

// An integer in [low, high], or the string `word` (read as `wordValue`).
bool intOrWord(const Json& v, const std::string& ptr, DiagnosticSink& sink, int& out, int low,
               int high, const char* word, int wordValue, const std::string& expected)
{
    if (v.is_string() && v.get<std::string>() == word) {
        out = wordValue;
        return true;
    }
    if (v.is_number_integer()) {
        const auto n = v.get<std::int64_t>();
        if (n >= low && n <= high) {
            out = static_cast<int>(n);
            return true;
        }
    }
    sink.error(ptr, "expected " + expected + ", got " + describeJson(v));
    return false;
}

// A fabric value: one kind (or base) for every datacenter, or an array of one per datacenter.
// An array whose entries are all the same is that one kind (so duplicates are dropped).
bool fabricIn(const Json& v, const std::string& ptr, DiagnosticSink& sink, FabricChoice& out,
              std::size_t datacenters)
{
    const std::string expected = "expected one of clos, rail-optimized, rail-only, base, or an "
                                 "array of " +
                                 std::to_string(datacenters) +
                                 " of them (one per datacenter), got " + describeJson(v);
    if (v.is_string()) {
        const std::string text = v.get<std::string>();
        const std::optional<FabricKind> kind = fabricKindFromString(text);
        if (kind || text == spacekeys::kBase) {
            out = FabricChoice(kind);
            return true;
        }
    }
    if (!v.is_array() || v.empty() || v.size() != datacenters) {
        sink.error(ptr, expected);
        return false;
    }
    std::vector<std::optional<FabricKind>> kinds;
    bool ok = true;
    for (std::size_t i = 0; i < v.size(); ++i) {
        std::optional<FabricKind> kind;
        ok = enumOrBase(v[i], childPointer(ptr, i), sink, kind, &fabricKindFromString,
                        "clos, rail-optimized, rail-only") &&
             ok;
        kinds.push_back(kind);
    }
    if (!ok)
        return false;
    const bool same =
        std::all_of(kinds.begin(), kinds.end(), [&](const auto& k) { return k == kinds.front(); });
    out = same ? FabricChoice(kinds.front()) : FabricChoice(std::move(kinds));
    return true;
}

// A value of a per-element dimension (explore/elementchoice.h): one value for every element, or
// an array of `count` of them, one per element in topology order ("DCI link": `noun`); "base"
// for an element that keeps its own. `one` reads a value that is not "base" and reports
// nothing; `oneExpected` says what it reads ("an integer in 1..4096").
template <typename T, typename One>
bool elementChoiceIn(const Json& v, const std::string& ptr, DiagnosticSink& sink,
                     ElementChoice<T>& out, std::size_t count, const std::string& oneExpected,
                     const char* noun, One one)
{
    const auto value = [&](const Json& x, std::optional<T>& into) {
        if (x.is_string() && x.get<std::string>() == spacekeys::kBase) {
            into = std::nullopt;
            return true;
        }
        T read{};
        if (!one(x, read))
            return false;
        into = std::move(read);
        return true;
    };
    std::optional<T> uniform;
    if (!v.is_array() && value(v, uniform)) {
        out = ElementChoice<T>(uniform);
        return true;
    }
    if (!v.is_array() || count == 0 || v.size() != count) {
        sink.error(ptr, "expected " + oneExpected +
                            (count == 0 ? std::string()
                                        : ", or an array of " + std::to_string(count) +
                                              " of them (one per " + noun + ")") +
                            ", got " + describeJson(v));
        return false;
    }
    std::vector<std::optional<T>> values(count);
    bool ok = true;
    for (std::size_t i = 0; i < count; ++i)
        if (!value(v[i], values[i])) {
            sink.error(childPointer(ptr, i),
                       "expected " + oneExpected + ", got " + describeJson(v[i]));
            ok = false;
        }
    if (!ok)
        return false;
    out = ElementChoice<T>(std::move(values));
    return true;
}

// A checkpoint interval: seconds of training between two checkpoints, "daly" (0, Daly's
// optimum, as the scenario's 0) or "base" (nullopt: the base's).
bool checkpointIntervalIn(const Json& v, const std::string& ptr, DiagnosticSink& sink,
                          std::optional<double>& out)
{
    if (v.is_string() && v.get<std::string>() == spacekeys::kBase) {
        out = std::nullopt;
        return true;
    }
    if (v.is_string() && v.get<std::string>() == spacekeys::kDaly) {
        out = 0.0;
        return true;
    }
    if (v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() > 0.0 &&
        v.get<double>() <= limits::kHuge) {
        out = v.get<double>();
        return true;
    }
    sink.error(ptr, "expected a positive number of seconds, daly or base, got " + describeJson(v));
    return false;
}

// A stage split: one offset for every boundary, or an array of one per boundary (datacenters -
// 1 entries, for two datacenters or more).
bool stageSplitIn(const Json& v, const std::string& ptr, DiagnosticSink& sink, StageSplit& out,
                  std::size_t datacenters)
{
    const std::string one =
        "an integer in -" + std::to_string(kMaxStageSplit) + ".." + std::to_string(kMaxStageSplit);
    const std::size_t boundaries = datacenters > 0 ? datacenters - 1 : 0;
    int offset = 0;
    if (!v.is_array() || boundaries == 0) {
        if (intIn(v, ptr, sink, offset, -kMaxStageSplit, kMaxStageSplit, one.c_str())) {
            out = StageSplit(offset);
            return true;
        }
        return false;
    }
    if (v.size() != boundaries) {
        sink.error(ptr, "expected " + one + " or an array of " + std::to_string(boundaries) +
                            " of them (one per boundary between datacenters), got " +
                            describeJson(v));
        return false;
    }
    std::vector<int> offsets;
    bool ok = true;
    for (std::size_t i = 0; i < v.size(); ++i) {
        ok = intIn(v[i], childPointer(ptr, i), sink, offset, -kMaxStageSplit, kMaxStageSplit,
                   one.c_str()) &&
             ok;
        offsets.push_back(offset);
    }
    if (!ok)
        return false;
    out = StageSplit(std::move(offsets));
    return true;
}

// max_gpus_per_datacenter: one positive integer for every datacenter, or one per datacenter.
void readGpuCaps(ObjectReader& r, const Scenario& base, std::vector<std::int64_t>& out)
{
    const Json* v = r.find(spacekeys::kMaxGpusPerDatacenter, Need::Optional, "");
    if (!v)
        return;
    const std::size_t dcs = base.topology.datacenters.size();
    const std::string expected = "a positive integer or an array of " + std::to_string(dcs) +
                                 " positive integers (one per datacenter)";
    const auto one = [](const Json& x, std::int64_t& n) {
        if (!x.is_number_integer() || x.get<std::int64_t>() < 1)
            return false;
        n = x.get<std::int64_t>();
        return true;
    };
    std::int64_t n = 0;
    if (one(*v, n)) {
        out = {n};
        return;
    }
    if (!v->is_array() || v->size() != dcs) {
        r.error(spacekeys::kMaxGpusPerDatacenter,
                "expected " + expected + ", got " + describeJson(*v));
        return;
    }
    std::vector<std::int64_t> caps;
    for (std::size_t i = 0; i < v->size(); ++i) {
        if (!one((*v)[i], n)) {
            r.sink().error(childPointer(r.pointerOf(spacekeys::kMaxGpusPerDatacenter), i),
                           "expected a positive integer, got " + describeJson((*v)[i]));
            return;
        }
        caps.push_back(n);
    }
    out = std::move(caps);
}

// global_batch: {"min": A, "max": B}, 1 <= A <= B.
void readBatchRange(ObjectReader& r, GlobalBatchRange& out)
{
    r.object(spacekeys::kGlobalBatch, Need::Optional, [&](ObjectReader& b) {
        int low = 0;
        int high = 0;
        const bool hasLow = b.integer(spacekeys::kMin, low, Need::Required, limits::kGlobalBatch);
        const bool hasHigh = b.integer(spacekeys::kMax, high, Need::Required, limits::kGlobalBatch);
        if (!hasLow || !hasHigh)
            return;
        if (low > high) {
            b.error(spacekeys::kMax, "expected at least min (" + std::to_string(low) + "), got " +
                                         std::to_string(high));
            return;
        }
        out = {low, high};
    });
}

// The schedule table's keys, for messages.
const std::string& scheduleChoices()
{
    static const std::string text = [] {
        std::string t;
        for (const ScheduleTraits& traits : allScheduleTraits())
            t += (t.empty() ? "" : ", ") + std::string(traits.key);
        return t;
    }();
    return text;
}

// readSearchSpace into a sink that holds the space's diagnostics only.
std::optional<SearchSpace> readSpace(const Json& doc, const Scenario& base, DiagnosticSink& sink,
                                     const std::string& pointer)
{
    SearchSpace s = defaultSearchSpace(base);
    {
        ObjectReader r(doc, pointer, sink);
        if (!r.valid())
            return std::nullopt;
        // A degree above the base's GPU count cannot be placed, and pipeline stages or virtual
        // stages beyond the layer count cannot be filled: refused here, naming the bound, not
        // pruned point by point after placements of a million stages were built.
        const int gpus =
            static_cast<int>(std::clamp<std::int64_t>(totalGpus(base.topology), 1, kMaxDegree));
        const int layers = std::clamp(base.workload.layers, 1, gpus);
        const std::string gpuBound =
            "a positive integer up to the scenario's " + std::to_string(gpus) + " GPUs";
        const std::string layerBound =
            "a positive integer up to the model's " + std::to_string(layers) + " layers";
        const auto degree = [&](const Json& v, const std::string& p, int& out) {
            return intIn(v, p, sink, out, 1, gpus, gpuBound.c_str());
        };
        const auto stages = [&](const Json& v, const std::string& p, int& out) {
            return intIn(v, p, sink, out, 1, layers, layerBound.c_str());
        };
        const auto flag = [&](const Json& v, const std::string& p, bool& out) {
            return boolIn(v, p, sink, out);
        };
        // One value for every DCI link, or one per link in topology order.
        const std::size_t links = base.topology.links.size();
        readList(r, spacekeys::kDciTransport, s.dciTransports,
                 [&](const Json& v, const std::string& p, ElementChoice<DciTransport>& out) {
                     return elementChoiceIn(
                         v, p, sink, out, links, "one of rdma-otn, lossy-ip, roce-pfc, base",
                         "DCI link", [](const Json& x, DciTransport& t) {
                             const auto read = x.is_string()
                                                   ? dciTransportFromString(x.get<std::string>())
                                                   : std::nullopt;
                             if (read)
                                 t = *read;
                             return read.has_value();
                         });
                 });
        readList(r, spacekeys::kWavelengths, s.wavelengths,
                 [&](const Json& v, const std::string& p, ElementChoice<int>& out) {
                     return elementChoiceIn(
                         v, p, sink, out, links,
                         std::string(limits::kWavelengths.expected) + " or base", "DCI link",
                         [](const Json& x, int& n) {
                             if (!x.is_number_integer() ||
                                 !limits::kWavelengths.contains(x.get<std::int64_t>()))
                                 return false;
                             n = static_cast<int>(x.get<std::int64_t>());
                             return true;
                         });
                 });
        readList(r, spacekeys::kNcclChannels, s.ncclChannels,
                 [&](const Json& v, const std::string& p, int& out) {
                     return intOrWord(v, p, sink, out, limits::kNcclChannels.min,
                                      limits::kNcclChannels.max, spacekeys::kBase, 0,
                                      std::string(limits::kNcclChannels.expected) + " or base");
                 });
        readList(r, spacekeys::kFabric, s.fabrics,
                 [&](const Json& v, const std::string& p, FabricChoice& out) {
                     return fabricIn(v, p, sink, out, base.topology.datacenters.size());
                 });
        readList(r, spacekeys::kTp, s.tp, degree);
        readList(r, spacekeys::kCp, s.cp, degree);
        readList(r, spacekeys::kPp, s.pp, stages);
        readList(r, spacekeys::kEp, s.ep, degree);
        readList(r, spacekeys::kBoundary, s.boundaries,
                 [&](const Json& v, const std::string& p, PlacementBoundary& out) {
                     return enumIn(v, p, sink, out, &placementBoundaryFromString, "base, pp, dp");
                 });
        // The default follows the boundaries (searchspace.cpp), which the file may set.
        if (!r.find(spacekeys::kStageSplit, Need::Optional, "an array"))
            s.stageSplits = defaultStageSplits(base, s.boundaries);
        readList(r, spacekeys::kStageSplit, s.stageSplits,
                 [&](const Json& v, const std::string& p, StageSplit& out) {
                     return stageSplitIn(v, p, sink, out, base.topology.datacenters.size());
                 });
        readList(r, spacekeys::kRankOrder, s.rankOrders,
                 [&](const Json& v, const std::string& p, RankOrder& out) {
                     if (v.is_string())
                         if (auto order = rankOrderFromString(v.get<std::string>())) {
                             out = *order;
                             return true;
                         }
                     sink.error(p, "expected each of tp, cp, ep, dp, pp once, joined by '-' "
                                   "(\"tp-cp-ep-dp-pp\"), got " +
                                       describeJson(v));
                     return false;
                 });
        readList(r, spacekeys::kDp, s.dataParallel,
                 [&](const Json& v, const std::string& p, int& out) {
                     return intOrWord(v, p, sink, out, 1, gpus, spacekeys::kMax, 0,
                                      "a positive integer or max");
                 });
        // The default follows the space's TP (searchspace.cpp), which the file may set.
        if (!r.find(spacekeys::kSequenceParallel, Need::Optional, "an array"))
            s.sequenceParallel = defaultSequenceParallel(base, s.tp);
        readList(r, spacekeys::kSequenceParallel, s.sequenceParallel, flag);
        readList(r, spacekeys::kVirtualStages, s.virtualStages, stages);
        readList(r, spacekeys::kMicroBatch, s.microBatch,
                 [&](const Json& v, const std::string& p, int& out) {
                     return intIn(v, p, sink, out, 1, std::max(1, base.workload.globalBatch),
                                  "a positive integer up to the global batch");
                 });
        readList(r, spacekeys::kSchedule, s.schedules,
                 [&](const Json& v, const std::string& p, ScheduleKind& out) {
                     return enumIn(v, p, sink, out, &scheduleKindFromString,
                                   scheduleChoices().c_str());
                 });
        readList(r, spacekeys::kExtraInFlight, s.extraInFlightAtDci,
                 [&](const Json& v, const std::string& p, int& out) {
                     return intIn(v, p, sink, out, 0, 1024, "an integer in 0..1024");
                 });
        readList(r, spacekeys::kRecompute, s.recompute,
                 [&](const Json& v, const std::string& p, Recompute& out) {
                     return enumIn(v, p, sink, out, &recomputeFromString, "none, selective, full");
                 });
        readList(r, spacekeys::kZeroStage, s.zeroStage,
                 [&](const Json& v, const std::string& p, int& out) {
                     return intIn(v, p, sink, out, 0, 3, "an integer in 0..3");
                 });
        readList(r, spacekeys::kDistributedOptimizer, s.distributedOptimizer, flag);
        readList(r, spacekeys::kGradReduceDtype, s.gradReduceDtype,
                 [&](const Json& v, const std::string& p, GradReduceDtype& out) {
                     return enumIn(v, p, sink, out, &gradReduceDtypeFromString, "fp32, bf16");
                 });
        readList(r, spacekeys::kDatacenterSync, s.datacenterSync,
                 [&](const Json& v, const std::string& p, std::optional<DatacenterSync>& out) {
                     return enumOrBase(v, p, sink, out, &datacenterSyncFromString,
                                       "synchronous, diloco, streaming-diloco");
                 });
        readList(r, spacekeys::kInnerSteps, s.innerSteps,
                 [&](const Json& v, const std::string& p, std::optional<int>& out) {
                     int h = 0; // "base": 0, below H's range
                     if (!intOrWord(v, p, sink, h, limits::kInnerSteps.min, limits::kInnerSteps.max,
                                    spacekeys::kBase, 0, "an integer in 1..100000 or base"))
                         return false;
                     out = h > 0 ? std::optional<int>(h) : std::nullopt;
                     return true;
                 });
        readList(r, spacekeys::kCheckpointIntervalS, s.checkpointIntervalS,
                 [&](const Json& v, const std::string& p, std::optional<double>& out) {
                     return checkpointIntervalIn(v, p, sink, out);
                 });
        double budget = 0.0;
        if (r.number(spacekeys::kCapexBudget, budget, Need::Optional, limits::kPositiveNumber))
            s.networkCapexBudgetUsd = budget;
        if (r.number(spacekeys::kPowerBudget, budget, Need::Optional, limits::kPositiveNumber))
            s.networkPowerBudgetW = budget;
        if (r.number(spacekeys::kDciCapacityMin, budget, Need::Optional, limits::kPositiveNumber))
            s.dciCapacityGbpsMin = budget;
        if (r.number(spacekeys::kMaxDciUtilisation, budget, Need::Optional,
                     limits::kPositiveNumber))
            s.maxDciUtilisation = budget;
        readGpuCaps(r, base, s.maxGpusPerDatacenter);
        readBatchRange(r, s.globalBatch);
        // A file with keys but none of a space's is another kind of file (a sweep's output, a
        // scenario): refused, not run as the default space.
        if (r.valid() && !doc.empty() && !r.holdsKnownKey())
            sink.error(pointer, doc.contains("top_by_objective")
                                    ? "a sweep's output, not a search space (give it to report "
                                      "--sweep or merge)"
                                    : "no key of a search space (tp, pp, dp, schedule, ... as "
                                      "docs/explore.md lists them): not a search space file");
    }
    if (!sink.hasErrors() && spacePoints(s) > kMaxSpacePoints)
        sink.error(pointer, "the space holds more than " + std::to_string(kMaxSpacePoints) +
                                " points: narrow a dimension");
    else if (!sink.hasErrors() && spacePlacements(s) > kMaxSpacePlacements)
        sink.error(pointer, "the space holds more than " + std::to_string(kMaxSpacePlacements) +
                                " placements (tp x cp x pp x ep x boundary x stage_split x "
                                "rank_order x dp): narrow a dimension");
    else if (!sink.hasErrors() && spaceTopologies(s) > kMaxSpaceTopologies)
        sink.error(
            pointer,
            "the space holds more than " + std::to_string(kMaxSpaceTopologies) +
                " topology variants (dci_transport x wavelengths x fabric x nccl_channels): narrow "
                "a dimension");
    if (sink.hasErrors())
        return std::nullopt;
    return s;
}

} // namespace

std::optional<SearchSpace> readSearchSpace(const Json& value, const Scenario& base,
                                           DiagnosticSink& sink, const std::string& pointer)
{
    // A sink of its own: an error the caller found before is not one of the space's.
    DiagnosticSink own(sink.file());
    std::optional<SearchSpace> space = readSpace(value, base, own, pointer);
    for (Diagnostic& d : own.takeErrors())
        sink.add(std::move(d));
    for (Diagnostic& d : own.takeWarnings())
        sink.add(std::move(d));
    return space;
}

std::optional<SearchSpace> parseSearchSpace(std::string_view text, const Scenario& base,
                                            DiagnosticSink& sink)
{
    Json doc;
    if (!parseJsonDocument(text, doc, sink))
        return std::nullopt;
    return readSearchSpace(doc, base, sink);
}

std::optional<SearchSpace> loadSearchSpace(const std::string& path, const Scenario& base,
                                           DiagnosticSink& sink)
{
    const std::optional<std::string> text = readTextFile(path, sink, "a search space file");
    if (!text)
        return std::nullopt;
    return parseSearchSpace(*text, base, sink);
}

namespace {

using OJson = nlohmann::ordered_json;

// A value or "base"/"max" for the sentinel.
template <typename T> OJson orWord(const std::optional<T>& v, const char* word)
{
    return v ? OJson(toString(*v)) : OJson(word);
}

OJson fabricJson(const FabricChoice& f)
{
    if (f.isUniform())
        return orWord(f.all, spacekeys::kBase);
    OJson a = OJson::array();
    for (const std::optional<FabricKind>& k : f.perDatacenter)
        a.push_back(orWord(k, spacekeys::kBase));
    return a;
}

// A per-link value (explore/elementchoice.h): one value or "base", or an array of one per link.
template <typename T, typename F> OJson choiceJson(const ElementChoice<T>& c, F one)
{
    const auto value = [&](const std::optional<T>& v) {
        return v ? OJson(one(*v)) : OJson(spacekeys::kBase);
    };
    if (c.isUniform())
        return value(c.all);
    OJson a = OJson::array();
    for (const std::optional<T>& v : c.each)
        a.push_back(value(v));
    return a;
}

template <typename T, typename F> OJson listJson(const std::vector<T>& values, F one)
{
    OJson a = OJson::array();
    for (const T& v : values)
        a.push_back(one(v));
    return a;
}

} // namespace

nlohmann::ordered_json searchSpaceToJson(const SearchSpace& s)
{
    using namespace spacekeys;
    const auto number = [](int v) { return OJson(v); };
    const auto flag = [](bool v) { return OJson(v); };
    OJson j;
    j[kDciTransport] = listJson(s.dciTransports, [](const ElementChoice<DciTransport>& t) {
        return choiceJson(t, [](DciTransport v) { return toString(v); });
    });
    j[kWavelengths] = listJson(s.wavelengths, [](const ElementChoice<int>& w) {
        return choiceJson(w, [](int v) { return v; });
    });
    j[kFabric] = listJson(s.fabrics, fabricJson);
    j[kNcclChannels] =
        listJson(s.ncclChannels, [](int c) { return c > 0 ? OJson(c) : OJson(kBase); });
    j[kTp] = listJson(s.tp, number);
    j[kCp] = listJson(s.cp, number);
    j[kPp] = listJson(s.pp, number);
    j[kEp] = listJson(s.ep, number);
    j[kBoundary] = listJson(s.boundaries, [](PlacementBoundary b) { return OJson(toString(b)); });
    j[kStageSplit] = listJson(s.stageSplits, [](const StageSplit& split) {
        return split.isUniform() ? OJson(split.offset) : OJson(split.perBoundary);
    });
    j[kRankOrder] =
        listJson(s.rankOrders, [](const RankOrder& o) { return OJson(rankOrderToString(o)); });
    j[kDp] = listJson(s.dataParallel, [](int d) { return d > 0 ? OJson(d) : OJson(kMax); });
    j[kSequenceParallel] = listJson(s.sequenceParallel, flag);
    j[kVirtualStages] = listJson(s.virtualStages, number);
    j[kMicroBatch] = listJson(s.microBatch, number);
    j[kSchedule] = listJson(s.schedules, [](ScheduleKind k) { return OJson(toString(k)); });
    j[kExtraInFlight] = listJson(s.extraInFlightAtDci, number);
    j[kRecompute] = listJson(s.recompute, [](Recompute r) { return OJson(toString(r)); });
    j[kZeroStage] = listJson(s.zeroStage, number);
    j[kDistributedOptimizer] = listJson(s.distributedOptimizer, flag);
    j[kGradReduceDtype] =
        listJson(s.gradReduceDtype, [](GradReduceDtype d) { return OJson(toString(d)); });
    j[kDatacenterSync] = listJson(s.datacenterSync, [](const std::optional<DatacenterSync>& d) {
        return d ? OJson(toString(*d)) : OJson(kBase);
    });
    j[kInnerSteps] = listJson(
        s.innerSteps, [](const std::optional<int>& h) { return h ? OJson(*h) : OJson(kBase); });
    j[kCheckpointIntervalS] =
        listJson(s.checkpointIntervalS, [](const std::optional<double>& seconds) {
            if (!seconds)
                return OJson(kBase);
            return *seconds > 0.0 ? OJson(*seconds) : OJson(kDaly);
        });
    if (s.networkCapexBudgetUsd)
        j[kCapexBudget] = *s.networkCapexBudgetUsd;
    if (s.networkPowerBudgetW)
        j[kPowerBudget] = *s.networkPowerBudgetW;
    if (s.dciCapacityGbpsMin)
        j[kDciCapacityMin] = *s.dciCapacityGbpsMin;
    if (s.maxDciUtilisation)
        j[kMaxDciUtilisation] = *s.maxDciUtilisation;
    if (s.maxGpusPerDatacenter.size() == 1)
        j[kMaxGpusPerDatacenter] = s.maxGpusPerDatacenter.front();
    else if (!s.maxGpusPerDatacenter.empty())
        j[kMaxGpusPerDatacenter] = s.maxGpusPerDatacenter;
    j[spacekeys::kGlobalBatch] = {{kMin, s.globalBatch.minSequences},
                                  {kMax, s.globalBatch.maxSequences}};
    return j;
}

} // namespace archipelago::core
