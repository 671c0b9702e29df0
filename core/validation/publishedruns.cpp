// Reading the published-runs format with the same reader, limits and messages as the scenario
// and the catalog (io/objectreader.h, model/scenariolimits.h): "FILE: /json/pointer: expected
// ..., got ...", unknown keys as warnings, null accepted only where a paper may leave a value
// unpublished.
#include "validation/publishedruns.h"

#include "io/objectreader.h"
#include "io/textfile.h"
#include "model/checkedmath.h"
#include "model/scenariolimits.h"
#include "validation/publishedrunsjson.h"

#include <algorithm>
#include <unordered_set>

namespace archipelago::core {

namespace {

using namespace limits;
namespace key = runkeys;

constexpr Need kReq = Need::Required;
constexpr Need kOpt = Need::Optional;

// A key that must be present but may be null ("not published"): the value, or nullptr for null
// or absent (absent is then an error).
const Json* nullable(ObjectReader& r, std::string_view key, std::string_view expected)
{
    const Json* v = r.find(key, kReq, std::string(expected) + " or null");
    return v && !v->is_null() ? v : nullptr;
}

std::optional<int> nullableInt(ObjectReader& r, std::string_view key, const IntLimit& limit)
{
    const Json* v = nullable(r, key, limit.expected);
    int value = 0;
    const std::string expected = std::string(limit.expected) + " or null";
    if (!v || !readInt(*v, r.pointerOf(key), r.sink(), value, expected))
        return std::nullopt;
    if (!limit.contains(value)) {
        r.error(key, "expected " + expected + ", got " + std::to_string(value));
        return std::nullopt;
    }
    return value;
}

std::optional<bool> nullableBool(ObjectReader& r, std::string_view key)
{
    const Json* v = nullable(r, key, "true or false");
    if (!v)
        return std::nullopt;
    if (!v->is_boolean()) {
        r.error(key, "expected true, false or null, got " + describeJson(*v));
        return std::nullopt;
    }
    return v->get<bool>();
}

// One of `choices` (an enum's names), or nullopt after an error naming them all.
std::optional<std::string> choice(ObjectReader& r, const Json& v, const std::string& pointer,
                                  const std::vector<std::string_view>& choices,
                                  std::string_view orElse = {})
{
    std::string expected = "one of ";
    for (std::size_t i = 0; i < choices.size(); ++i)
        expected += (i > 0 ? (i + 1 == choices.size() && orElse.empty() ? " or " : ", ") : "") +
                    ("\"" + std::string(choices[i]) + "\"");
    expected += orElse;
    if (v.is_string()) {
        const std::string& s = v.get_ref<const std::string&>();
        if (std::find(choices.begin(), choices.end(), s) != choices.end())
            return s;
    }
    r.sink().error(pointer, "expected " + expected + ", got " + describeJson(v));
    return std::nullopt;
}

void readModel(ObjectReader& r, Workload& w)
{
    const std::size_t errorsBefore = r.sink().errors().size();
    r.integer(key::kLayers, w.layers, kReq, kLayers);
    r.integer(key::kHidden, w.hidden, kReq, kPositive);
    r.integer(key::kHeads, w.heads, kReq, kPositive);
    r.integer(key::kKvHeads, w.kvHeads, kReq, kPositive);
    r.integer(key::kFfnHidden, w.ffnHidden, kReq, kPositive);
    r.integer(key::kVocab, w.vocab, kReq, kPositive);
    r.integer(key::kSeqLen, w.seqLen, kReq, kPositive);
    r.enumeration(key::kFfnActivation, w.activation, ffnActivationFromString, "gelu | swiglu",
                  kReq);
    // The count stops at DiagnosticSink::kMaxKept, so the divisors are tested too.
    if (r.sink().errors().size() == errorsBefore && w.heads > 0 && w.kvHeads > 0) {
        if (w.hidden % w.heads != 0)
            r.error(key::kHeads, "expected a divisor of hidden " + std::to_string(w.hidden) +
                                     ", got " + std::to_string(w.heads));
        else if (w.kvHeads > w.heads || w.heads % w.kvHeads != 0)
            r.error(key::kKvHeads, "expected a divisor of heads " + std::to_string(w.heads) +
                                       ", got " + std::to_string(w.kvHeads));
    }
}

void readOptimizations(ObjectReader& r, PublishedRun& run)
{
    static const std::vector<std::string_view> kKnown = {
        "parallel_block",  "sliding_window_attention", "tp_comm_overlap",
        "pp_comm_overlap", "dp_comm_overlap",          "fused_kernels"};
    const Json* v = r.find(key::kOptimizations, kOpt, "a list of optimizations");
    if (!v || v->is_null())
        return;
    r.array(key::kOptimizations, kOpt, [&](const Json& element, const std::string& pointer) {
        if (auto name = choice(r, element, pointer, kKnown))
            run.optimizations.push_back(*name);
    });
}

// Version 2's `software_date`: "YYYY-MM", a real month.
void readSoftwareDate(ObjectReader& r, PublishedRun& run)
{
    const std::string expected = "a month \"YYYY-MM\" (a year from " + std::to_string(kFirstYear) +
                                 ", a month from 01 to 12)";
    const Json* v = r.find(key::kSoftwareDate, kReq, expected);
    if (!v)
        return;
    if (v->is_string())
        if (std::optional<YearMonth> month = parseYearMonth(v->get_ref<const std::string&>())) {
            run.softwareDate = month;
            return;
        }
    r.error(key::kSoftwareDate, "expected " + expected + ", got " + describeJson(*v));
}

// The training stack: a name ("Megatron-LM", "NeMo", ...; a stack the README does not list yet
// is no error, its knobs are then not restricted by date), optional in version 1; in version 2
// required, with the release month it ran.
void readSoftware(ObjectReader& r, PublishedRun& run, int version)
{
    if (version >= 2) {
        if (std::string name; r.string(key::kSoftware, name, kReq)) {
            if (name.empty())
                r.error(key::kSoftware, "expected the name of a training stack, got \"\"");
            else
                run.software = name;
        }
        readSoftwareDate(r, run);
        return;
    }
    if (const Json* v = r.find(key::kSoftware, kOpt, "a string"); v && !v->is_null())
        if (std::string name; r.string(key::kSoftware, name))
            run.software = name;
}

void readTraining(ObjectReader& r, PublishedRun& run, int version)
{
    r.integer(key::kGlobalBatch, run.model.globalBatch, kReq, kGlobalBatch);
    run.microBatch = nullableInt(r, key::kMicroBatch, kPositive);
    r.integer(key::kTp, run.tp, kReq, kPositive);
    r.integer(key::kPp, run.pp, kReq, kPositive);
    r.integer(key::kDp, run.dp, kReq, kPositive);
    r.integer(key::kCp, run.cp, kReq, kPositive);
    r.integer(key::kEp, run.ep, kReq, kPositive);
    run.virtualStages = nullableInt(r, key::kVirtualStages, kPositive);
    run.sequenceParallel = nullableBool(r, key::kSequenceParallel);
    if (const Json* v = nullable(r, key::kRecompute, "\"full\" or \"selective\""))
        if (auto name =
                choice(r, *v, r.pointerOf(key::kRecompute), {"full", "selective"}, " or null"))
            run.recompute = *name == "full" ? Recompute::Full : Recompute::Selective;
    r.enumeration(key::kPrecision, run.model.precision, precisionFromString, "bf16 | fp8", kReq);
    readSoftware(r, run, version);
    readOptimizations(r, run);
}

void readFabric(ObjectReader& r, PublishedRun& run)
{
    r.enumeration(key::kFabricKind, run.fabricKind, fabricKindFromString,
                  "clos | rail-optimized | rail-only", kReq);
    r.integer(key::kTiers, run.fabricTiers, kReq, kTiers);
    // Either one oversubscription for the whole fabric, or a pod of full bisection with an
    // oversubscription above it (the README's two forms).
    if (r.find(key::kPodGpus, kOpt, "")) {
        r.integer(key::kPodGpus, run.podGpus, kReq, kPositive);
        r.number(key::kPodOversubscription, run.podOversubscription, kReq, kOversubscription);
        if (r.find(key::kOversubscription, kOpt, ""))
            r.error(key::kOversubscription, "expected either oversubscription or pod_gpus with "
                                            "pod_oversubscription, got both");
    } else {
        r.number(key::kOversubscription, run.oversubscription, kReq, kOversubscription);
        if (r.find(key::kPodOversubscription, kOpt, ""))
            r.error(key::kPodOversubscription, "expected pod_gpus beside pod_oversubscription");
    }
}

void readSystem(ObjectReader& r, PublishedRun& run)
{
    r.string(key::kAccelerator, run.accelerator, kReq);
    r.number(key::kPeakDenseTflops, run.peakDenseTflops, kReq, kPeakTflops);
    r.number(key::kHbmGib, run.hbmGib, kReq, kHbmGib);
    r.integer(key::kGpus, run.gpus, kReq, kPositive);
    r.integer(key::kGpusPerNode, run.gpusPerNode, kReq, kPositive);
    r.number(key::kScaleUpGBps, run.scaleUpGBpsPerDirection, kReq, kScaleUpGBps);
    r.number(key::kScaleOutGbps, run.scaleOutGbpsPerGpu, kReq, kPortGbps);
    r.object(key::kFabric, kReq, [&](ObjectReader& f) { readFabric(f, run); });
}

// Relations between fields, checked once every field of the run read cleanly.
void checkRun(ObjectReader& r, const PublishedRun& run)
{
    // Four degrees up to 2^31 each: their product can pass 2^63, so it is checked.
    const std::optional<std::int64_t> product = checkedProduct(run.tp, run.pp, run.dp, run.cp);
    const std::string system = r.pointerOf(key::kSystem);
    if (product != run.gpus)
        r.sink().error(childPointer(system, key::kGpus),
                       "expected tp*pp*dp*cp = " +
                           (product ? std::to_string(*product)
                                    : std::to_string(run.tp) + "*" + std::to_string(run.pp) + "*" +
                                          std::to_string(run.dp) + "*" + std::to_string(run.cp) +
                                          " (more than 2^63)") +
                           ", got " + std::to_string(run.gpus));
    if (run.gpusPerNode > 0 && run.gpus % run.gpusPerNode != 0)
        r.sink().error(childPointer(system, key::kGpusPerNode),
                       "expected a divisor of gpus " + std::to_string(run.gpus) + ", got " +
                           std::to_string(run.gpusPerNode));
}

// A measured run's own scenario (validation/measuredrun.h): a whole scenario document, read by
// the scenario reader, its diagnostics under the run's "scenario" pointer.
void readOwnScenario(ObjectReader& r, PublishedRun& run)
{
    const Json* v = r.find(key::kScenario, kOpt, "an Archipelago scenario");
    if (!v)
        return;
    if (v->is_object() && v->contains("calibration")) {
        r.sink().error(childPointer(r.pointerOf(key::kScenario), "calibration"),
                       "a measured run's scenario names no calibration (the run calibrates)");
        return;
    }
    LoadResult loaded = parseScenario(v->dump(), r.sink().file());
    const std::string at = r.pointerOf(key::kScenario);
    for (Diagnostic& d : loaded.errors) {
        d.pointer = at + d.pointer;
        r.sink().add(std::move(d));
    }
    for (Diagnostic& d : loaded.warnings) {
        d.pointer = at + d.pointer;
        r.sink().add(std::move(d));
    }
    if (loaded.ok())
        run.scenario = std::move(*loaded.scenario);
}

PublishedRun readRun(ObjectReader& r, int version)
{
    PublishedRun run;
    const std::size_t errorsBefore = r.sink().errors().size();
    r.string(key::kId, run.id, kReq);
    r.string(key::kSource, run.source, kReq);
    if (const Json* v = r.find(key::kNotes, kOpt, "a string"); v && !v->is_null())
        r.string(key::kNotes, run.notes, kOpt);
    run.model.name = run.id;
    r.object(key::kModel, kReq, [&](ObjectReader& o) { readModel(o, run.model); });
    r.object(key::kTraining, kReq, [&](ObjectReader& o) { readTraining(o, run, version); });
    r.object(key::kSystem, kReq, [&](ObjectReader& o) { readSystem(o, run); });
    r.object(key::kMeasured, kReq, [&](ObjectReader& o) {
        o.number(key::kIterationTimeS, run.measuredIterationS, kReq, kPositiveNumber);
    });
    readOwnScenario(r, run);
    if (r.sink().errors().size() == errorsBefore)
        checkRun(r, run);
    return run;
}

void readDocument(ObjectReader& root, PublishedRunsLoad& out)
{
    std::string format;
    if (root.string(key::kFormat, format, kReq) && format != kPublishedRunsFormat)
        root.error(key::kFormat, std::string("expected \"") + kPublishedRunsFormat + "\", got " +
                                     describeJson(Json(format)));
    int version = 0;
    const std::string versions = std::to_string(kOldestPublishedRunsVersion) + " or " +
                                 std::to_string(kPublishedRunsVersion);
    if (root.integer(key::kVersion, version, kReq, versions) &&
        (version < kOldestPublishedRunsVersion || version > kPublishedRunsVersion))
        root.error(key::kVersion, "expected " + versions + ", got " + std::to_string(version));
    std::string about;
    root.string(key::kAbout, about);
    if (root.sink().hasErrors())
        return; // another kind of document: the runs would only add noise

    const Json* runs = root.find(key::kRuns, kReq, "an array of runs");
    if (!runs)
        return;
    if (!runs->is_array()) {
        root.error(key::kRuns, "expected an array of runs, got " + describeJson(*runs));
        return;
    }
    if (runs->empty()) {
        root.error(key::kRuns, "expected at least one run, got an empty array");
        return;
    }
    if (runs->size() > static_cast<std::size_t>(kMaxPublishedRuns)) {
        root.error(key::kRuns, "expected at most " + std::to_string(kMaxPublishedRuns) +
                                   " runs, got " + std::to_string(runs->size()));
        return;
    }
    std::unordered_set<std::string> ids;
    root.objects(key::kRuns, kReq, [&](ObjectReader& r) {
        PublishedRun run = readRun(r, version);
        if (!run.id.empty() && !ids.insert(run.id).second)
            r.error(key::kId,
                    "expected a unique id, got " + describeJson(Json(run.id)) + " a second time");
        out.runs.push_back(std::move(run));
    });
}

} // namespace

PublishedRunsLoad parsePublishedRuns(std::string_view text, const std::string& file)
{
    PublishedRunsLoad out;
    DiagnosticSink sink(file);
    try {
        Json doc;
        if (text.size() > kMaxFileBytes)
            sink.error({}, "the file is larger than the " + std::to_string(kMaxFileBytes) +
                               " bytes a runs file may have; refusing to read it");
        else if (parseJsonDocument(text, doc, sink) && !sink.hasErrors()) {
            ObjectReader root(doc, {}, sink);
            if (root.valid())
                readDocument(root, out);
        }
    } catch (const std::exception& ex) {
        // Only memory exhaustion can get here (the readers do not throw); no exception
        // crosses the layer boundary.
        sink.error({}, std::string("could not read the runs: ") + ex.what());
    }
    out.errors = sink.takeErrors();
    out.warnings = sink.takeWarnings();
    if (!out.errors.empty())
        out.runs.clear();
    return out;
}

PublishedRunsLoad loadPublishedRuns(const std::string& path)
{
    DiagnosticSink sink(path);
    if (std::optional<std::string> text = readTextFile(path, sink, "a runs file"))
        return parsePublishedRuns(*text, path);
    PublishedRunsLoad out;
    out.errors = sink.takeErrors();
    return out;
}

} // namespace archipelago::core
