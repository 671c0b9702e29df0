#include "explore/spacereader.h"

#include "io/jsondocument.h"
#include "io/objectreader.h"
#include "io/textfile.h"
#include "model/scheduletraits.h"

#include <algorithm>

namespace archipelago::core {

namespace {

constexpr int kMaxDegree = 1 << 20;

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

} // namespace

std::optional<SearchSpace> parseSearchSpace(std::string_view text, const Scenario& base,
                                            DiagnosticSink& sink)
{
    Json doc;
    if (!parseJsonDocument(text, doc, sink))
        return std::nullopt;
    SearchSpace s = defaultSearchSpace(base);
    {
        ObjectReader r(doc, "", sink);
        if (!r.valid())
            return std::nullopt;
        const auto degree = [&](const Json& v, const std::string& p, int& out) {
            return intIn(v, p, sink, out, 1, kMaxDegree, "a positive integer");
        };
        readList(r, spacekeys::kTp, s.tp, degree);
        readList(r, spacekeys::kCp, s.cp, degree);
        readList(r, spacekeys::kPp, s.pp, degree);
        readList(r, spacekeys::kEp, s.ep, degree);
        readList(r, spacekeys::kVirtualStages, s.virtualStages, degree);
        readList(r, spacekeys::kMicroBatch, s.microBatch, degree);
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
        readList(r, spacekeys::kDistributedOptimizer, s.distributedOptimizer,
                 [&](const Json& v, const std::string& p, bool& out) {
                     if (v.is_boolean()) {
                         out = v.get<bool>();
                         return true;
                     }
                     sink.error(p, "expected true or false, got " + describeJson(v));
                     return false;
                 });
        double budget = 0.0;
        if (r.number(spacekeys::kCapexBudget, budget, Need::Optional, limits::kPositiveNumber))
            s.networkCapexBudgetUsd = budget;
        if (r.number(spacekeys::kPowerBudget, budget, Need::Optional, limits::kPositiveNumber))
            s.networkPowerBudgetW = budget;
    }
    if (!sink.hasErrors() && spacePoints(s) > kMaxSpacePoints)
        sink.error("", "the space holds more than " + std::to_string(kMaxSpacePoints) +
                           " points: narrow a dimension");
    if (sink.hasErrors())
        return std::nullopt;
    return s;
}

std::optional<SearchSpace> loadSearchSpace(const std::string& path, const Scenario& base,
                                           DiagnosticSink& sink)
{
    const std::optional<std::string> text = readTextFile(path, sink, "a search space file");
    if (!text)
        return std::nullopt;
    return parseSearchSpace(*text, base, sink);
}

} // namespace archipelago::core
