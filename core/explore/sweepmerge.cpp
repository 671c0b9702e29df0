#include "explore/sweepmerge.h"

#include "explore/sweepmergeshard.h"
#include "io/jsondocument.h"
#include "io/scenarioio.h"
#include "io/textfile.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>
#include <new>

namespace archipelago::core {

using json = nlohmann::json;
using namespace sweepkeys;
using namespace sweepmerge; // the shard side of the merge

namespace {

std::string sizeText(std::size_t bytes)
{
    return bytes >= (std::size_t{1} << 20) ? std::to_string(bytes >> 20) + " MiB"
                                           : std::to_string(bytes) + " bytes";
}

} // namespace

struct SweepMerger::State
{
    std::optional<int> top;
    std::size_t maxBytes = kMaxMergedBytes;
    std::vector<Diagnostic> errors;
    // Once a shard is refused the others are still checked, no longer merged.
    bool merging = true;

    // The first shard accepted, which the others are checked against.
    bool any = false;
    std::string firstFile;
    json header; // its keys but the points, for the output
    int count = 0;
    std::uint64_t spacePoints = 0;
    std::vector<std::string> fileByIndex; // empty: not given yet

    // The merge so far.
    json counts;
    std::uint64_t fasterThanBase = 0;
    std::uint64_t limit = 0; // the length of the merged top lists
    std::array<std::vector<KeptPoint>, kSweepObjectives> topBy;
    std::array<std::vector<KeptPoint>, kFrontSpecs.size()> fronts;
    std::array<std::size_t, kSweepObjectives> topByBytes{};
    std::array<std::size_t, kFrontSpecs.size()> frontBytes{};
    std::size_t bytes = 0; // footprintBytes of header, topBy and fronts

    void error(const std::string& file, const std::string& pointer, const std::string& message)
    {
        Reporter(file, errors).error(pointer, message);
    }
    void first(const std::string& file, const json& root, const Shard& s);
    void checkSameSweep(const std::string& file, const Shard& s);
    bool foldCounts(const std::string& file, const Shard& s);
    bool replace(const std::string& file, const std::string& pointer, std::vector<KeptPoint>& kept,
                 std::size_t& keptBytes, const std::vector<MergePoint>& incoming,
                 const std::vector<std::size_t>& take);
    bool fold(const std::string& file, const Shard& s);
    bool add(const std::string& file, const json& root);
};

void SweepMerger::State::first(const std::string& file, const json& root, const Shard& s)
{
    any = true;
    firstFile = file;
    header = json::object();
    for (const auto& [key, value] : root.items())
        if (key != kTop && key != kTopByObjective && key != kFronts)
            header[key] = value;
    bytes = footprintBytes(header);
    count = s.count;
    spacePoints = s.spacePoints;
    fileByIndex.assign(static_cast<std::size_t>(count), std::string());
    counts = *s.counts;
    for (auto& [key, value] : counts.items()) {
        if (key == kSpacePoints)
            continue;
        if (value.is_object())
            for (auto& [sub, v] : value.items())
                v = std::uint64_t{0};
        else
            value = std::uint64_t{0};
    }
    limit = top ? static_cast<std::uint64_t>(*top) : s.top;
}

// The same count, inputs (but top), base and space as the first shard; no index twice.
void SweepMerger::State::checkSameSweep(const std::string& file, const Shard& s)
{
    const Reporter r(file, errors);
    if (s.count != count) {
        r.error("/shard/count", "expected " + std::to_string(count) + " as in " + firstFile +
                                    ", got " + std::to_string(s.count) +
                                    ": not a shard of the same sweep");
        return;
    }
    const json& a = header[kInputs];
    const json& b = *s.inputs;
    for (const auto* keys : {&a, &b})
        for (const auto& [key, value] : keys->items()) {
            if (key == kTop || (keys == &b && a.contains(key)))
                continue;
            const auto ia = a.find(key);
            const auto ib = b.find(key);
            const std::string pointer = childPointer("/inputs", key);
            if (ib == b.end())
                r.error(pointer, "expected " + describe(*ia) + " as in " + firstFile + ", missing");
            else if (ia == a.end() || *ia != *ib)
                r.error(pointer, "expected " + (ia == a.end() ? "no such key" : describe(*ia)) +
                                     " as in " + firstFile + ", got " + describe(*ib) +
                                     ": a different scenario, space or program version");
        }
    if (*s.base != header[kBase])
        r.error("/base", "differs from the base of " + firstFile +
                             ": a different scenario or program version");
    if (s.spacePoints != spacePoints)
        r.error("/counts/space_points", "expected " + std::to_string(spacePoints) + " as in " +
                                            firstFile + ", got " + std::to_string(s.spacePoints) +
                                            ": not a shard of the same sweep");
}

// The sums of the shards' counts, key by key (a reason added to the counts later merges too).
bool SweepMerger::State::foldCounts(const std::string& file, const Shard& s)
{
    const std::size_t errorsBefore = errors.size();
    const Reporter r(file, errors);
    const json& shardCounts = *s.counts;
    for (const auto& [key, value] : shardCounts.items())
        if (!counts.contains(key))
            r.error(childPointer("/counts", key),
                    "not a count of " + firstFile + ": another program version?");
    const auto add = [&](json& total, const json& value, const std::string& pointer) {
        const std::optional<std::uint64_t> n = r.count(value, pointer);
        std::uint64_t sum = total.get<std::uint64_t>();
        if (n && !addChecked(sum, *n))
            r.error(pointer, "the sum of the shards' counts overflows 64 bits");
        else if (n)
            total = sum;
    };
    for (auto& [key, total] : counts.items()) {
        if (key == kSpacePoints)
            continue;
        const std::string pointer = childPointer("/counts", key);
        const auto it = shardCounts.find(key);
        if (it == shardCounts.end()) {
            r.error(pointer, "expected a count as in " + firstFile + ", missing");
            continue;
        }
        if (!total.is_object()) {
            add(total, *it, pointer);
            continue;
        }
        if (!it->is_object()) {
            r.error(pointer, "expected an object, got " + describe(*it));
            continue;
        }
        for (const auto& [sub, value] : it->items())
            if (!total.contains(sub))
                r.error(childPointer(pointer, sub),
                        "not a count of " + firstFile + ": another program version?");
        for (auto& [sub, subTotal] : total.items()) {
            const auto jt = it->find(sub);
            const std::string subPointer = childPointer(pointer, sub);
            if (jt == it->end())
                r.error(subPointer, "expected a count as in " + firstFile + ", missing");
            else
                add(subTotal, *jt, subPointer);
        }
    }
    if (!addChecked(fasterThanBase, s.fasterThanBase))
        r.error("/faster_than_base", "the sum of the shards' counts overflows 64 bits");
    return errors.size() == errorsBefore;
}

// `kept` becomes the points `take` names: positions in `kept`, then in `incoming` past them.
// False, the list unchanged, when the merge would hold more than maxBytes.
bool SweepMerger::State::replace(const std::string& file, const std::string& pointer,
                                 std::vector<KeptPoint>& kept, std::size_t& keptBytes,
                                 const std::vector<MergePoint>& incoming,
                                 const std::vector<std::size_t>& take)
{
    std::size_t newBytes = 0;
    for (std::size_t pos : take)
        newBytes += pos < kept.size() ? kept[pos].bytes
                                      : footprintBytes(*incoming[pos - kept.size()].value);
    if (bytes - keptBytes + newBytes > maxBytes) {
        error(file, pointer,
              "the merged fronts and top lists would hold more than " + sizeText(maxBytes) +
                  " (estimated) with this shard's points: more points that no other point "
                  "dominates than a merge holds in memory (a forged or corrupt shard?)");
        return false;
    }
    std::vector<KeptPoint> out;
    out.reserve(take.size());
    for (std::size_t pos : take) {
        if (pos < kept.size()) {
            out.push_back(std::move(kept[pos]));
            continue;
        }
        const MergePoint& p = incoming[pos - kept.size()];
        out.push_back({p.figures, *p.value, 0});
        out.back().bytes = footprintBytes(out.back().value);
    }
    kept = std::move(out);
    bytes = bytes - keptBytes + newBytes;
    keptBytes = newBytes;
    return true;
}

bool SweepMerger::State::fold(const std::string& file, const Shard& s)
{
    if (!top)
        limit = std::min(limit, s.top);
    // Each top list of the union is the first `limit` of the union of the lists in rankedBefore's
    // order (the objective, then iteration time, then index).
    for (std::size_t k = 0; k < kSweepObjectives; ++k) {
        std::vector<KeptPoint>& kept = topBy[k];
        const std::vector<MergePoint>& incoming = s.topBy[k];
        const auto figures = [&](std::size_t pos) -> const Figures& {
            return pos < kept.size() ? kept[pos].figures : incoming[pos - kept.size()].figures;
        };
        std::vector<std::size_t> order(kept.size() + incoming.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            const Figures& p = figures(a);
            const Figures& q = figures(b);
            if (p.objective[k] != q.objective[k])
                return p.objective[k] < q.objective[k];
            if (p.iterationTimeS != q.iterationTimeS)
                return p.iterationTimeS < q.iterationTimeS;
            return p.index < q.index;
        });
        if (order.size() > limit)
            order.resize(static_cast<std::size_t>(limit));
        if (!replace(file,
                     childPointer("/top_by_objective", toString(static_cast<SweepObjective>(k))),
                     kept, topByBytes[k], incoming, order))
            return false;
    }
    // Each front of the union is the front of the union of the fronts; a repeated index in a
    // shard's list keeps its first occurrence.
    for (std::size_t f = 0; f < kFrontSpecs.size(); ++f) {
        std::vector<KeptPoint>& kept = fronts[f];
        const std::vector<MergePoint>& incoming = s.fronts[f];
        std::vector<FrontCandidate> candidates;
        std::vector<std::size_t> position; // in kept, then in incoming past it
        candidates.reserve(kept.size() + incoming.size());
        for (std::size_t i = 0; i < kept.size(); ++i) {
            candidates.push_back(kept[i].figures.front[f]);
            position.push_back(i);
        }
        std::vector<std::size_t> byIndex(incoming.size());
        for (std::size_t i = 0; i < byIndex.size(); ++i)
            byIndex[i] = i;
        std::stable_sort(byIndex.begin(), byIndex.end(), [&](std::size_t a, std::size_t b) {
            return incoming[a].figures.index < incoming[b].figures.index;
        });
        for (std::size_t i = 0; i < byIndex.size(); ++i)
            if (i == 0 ||
                incoming[byIndex[i]].figures.index != incoming[byIndex[i - 1]].figures.index) {
                candidates.push_back(incoming[byIndex[i]].figures.front[f]);
                position.push_back(kept.size() + byIndex[i]);
            }
        std::vector<std::size_t> take = paretoFrontOf(candidates);
        for (std::size_t& t : take)
            t = position[t];
        if (!replace(file, childPointer("/fronts", kFrontSpecs[f].name), kept, frontBytes[f],
                     incoming, take))
            return false;
    }
    return true;
}

bool SweepMerger::State::add(const std::string& file, const json& root)
{
    const std::size_t errorsBefore = errors.size();
    const std::optional<Shard> s = readShard(file, root, errors);
    if (!s) {
        merging = false;
        return false;
    }
    if (!any)
        first(file, root, *s);
    else
        checkSameSweep(file, *s);
    if (errors.size() == errorsBefore) {
        std::string& slot = fileByIndex[static_cast<std::size_t>(s->index)];
        if (!slot.empty())
            error(file, "/shard/index",
                  "shard " + std::to_string(s->index) + "/" + std::to_string(s->count) +
                      " is given twice (also " + slot + ")");
        else
            slot = file;
    }
    if (top && static_cast<std::uint64_t>(*top) > s->top)
        error(file, "/inputs/top",
              "the shard kept the top " + std::to_string(s->top) +
                  " per objective, fewer than --top " + std::to_string(*top) +
                  ": run the shards with --top " + std::to_string(*top) + " or more");
    if (errors.size() != errorsBefore || !merging || !foldCounts(file, *s) || !fold(file, *s)) {
        merging = false;
        return errors.size() == errorsBefore;
    }
    return true;
}

SweepMerger::SweepMerger(std::optional<int> top, std::size_t maxBytes)
    : m(std::make_unique<State>())
{
    m->top = top;
    m->maxBytes = maxBytes;
}

SweepMerger::~SweepMerger() = default;

bool SweepMerger::add(const std::string& file, const nlohmann::json& shard)
{
    // The checks guard every access; this is for what they could have missed.
    try {
        return m->add(file, shard);
    } catch (const std::bad_alloc&) {
        m->error(file, {}, "out of memory while merging this shard");
    } catch (const std::exception& e) {
        m->error(file, {}, std::string("unexpected JSON: ") + e.what());
    }
    m->merging = false;
    return false;
}

bool SweepMerger::addFile(const std::string& path)
{
    std::optional<json> shard;
    try {
        DiagnosticSink sink(path);
        shard = readSweepJson(path, sink);
        for (Diagnostic& d : sink.takeErrors())
            if (m->errors.size() < DiagnosticSink::kMaxKept)
                m->errors.push_back(std::move(d));
    } catch (const std::bad_alloc&) {
        m->error(path, {}, "out of memory while reading the shard");
    }
    if (!shard) {
        m->merging = false;
        return false;
    }
    return add(path, *shard);
}

SweepMergeResult SweepMerger::finish()
{
    SweepMergeResult result;
    State& st = *m;
    if (!st.any && st.errors.empty())
        st.error({}, {}, "no shard to merge");
    // A refused shard is not missing: its own errors say what is wrong with it.
    if (st.any && st.errors.empty()) {
        std::string missing;
        std::size_t missingCount = 0;
        for (std::size_t i = 0; i < st.fileByIndex.size(); ++i)
            if (st.fileByIndex[i].empty() && ++missingCount <= 20)
                missing += (missing.empty() ? "" : ", ") + std::to_string(i);
        if (missingCount > 0)
            st.error(st.firstFile, "/shard/count",
                     "shards missing: " + missing + (missingCount > 20 ? ", ..." : "") + " (" +
                         std::to_string(missingCount) + " of the " + std::to_string(st.count) +
                         "; merge needs every shard's output)");
    }
    if (!st.errors.empty() || !st.merging) {
        result.errors = std::move(st.errors);
        return result;
    }
    std::uint64_t baseRank = st.fasterThanBase;
    if (!addChecked(baseRank, 1)) {
        st.error(st.firstFile, "/faster_than_base",
                 "the shards' sum is 2^64 - 1: the base's rank, one more, overflows 64 bits");
        result.errors = std::move(st.errors);
        return result;
    }
    json out = std::move(st.header);
    out[kCancelled] = false;
    out[kCounts] = std::move(st.counts);
    out[kFasterThanBase] = st.fasterThanBase;
    out[kBaseRank] = baseRank;
    out[kShard] = {{kIndex, 0}, {kCount, 1}};
    out[kInputs][kTop] = st.limit;
    const auto toArray = [](std::vector<KeptPoint>& points) {
        json a = json::array();
        for (KeptPoint& p : points)
            a.push_back(std::move(p.value));
        return a;
    };
    json byObjective = json::object();
    for (std::size_t k = 0; k < kSweepObjectives; ++k)
        byObjective[toString(static_cast<SweepObjective>(k))] = toArray(st.topBy[k]);
    out[kTop] = byObjective[toString(SweepObjective::IterationTime)];
    out[kTopByObjective] = std::move(byObjective);
    json fronts = json::object();
    for (std::size_t f = 0; f < kFrontSpecs.size(); ++f)
        fronts[kFrontSpecs[f].name] = toArray(st.fronts[f]);
    out[kFronts] = std::move(fronts);
    result.merged = std::move(out);
    result.shardCount = st.count;
    m = std::make_unique<State>(); // the merged points were moved out
    return result;
}

SweepMergeResult mergeSweepShards(const std::vector<SweepShardJson>& shards, std::optional<int> top)
{
    SweepMerger merger(top);
    for (const SweepShardJson& s : shards)
        merger.add(s.file, s.json);
    return merger.finish();
}

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

std::string scenarioFingerprint(const Scenario& scenario)
{
    return fingerprintHex(fnv1a64(serializeScenario(scenario)));
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
    return json{{"scenario_fnv1a64", scenarioFingerprint(base)},
                {"space_fnv1a64", fingerprintHex(fnv1a64(space))},
                {kTop, std::max(0, top)}};
}

std::optional<nlohmann::json> readSweepJson(const std::string& path, DiagnosticSink& sink)
{
    // The text, then the ordered document, dropped as soon as the next form is made.
    std::optional<std::string> text =
        readTextFile(path, sink, "the JSON output of `archipelago-cli sweep -o`");
    Json parsed;
    if (!text || !parseJsonDocument(*text, parsed, sink))
        return std::nullopt;
    text.reset();
    return json(std::move(parsed));
}

} // namespace archipelago::core
