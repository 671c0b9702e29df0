#include "validation/measuredrun.h"

#include "io/scenarioio.h"
#include "validation/publishedruns.h"
#include "validation/publishedrunsjson.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

namespace archipelago::core {

namespace key = runkeys;

namespace {

const char* recomputeName(Recompute r)
{
    switch (r) {
    case Recompute::Full:
        return "full";
    case Recompute::Selective:
        return "selective";
    default:
        return nullptr;
    }
}

Json modelJson(const Workload& w)
{
    return {{key::kLayers, w.layers},       {key::kHidden, w.hidden},
            {key::kHeads, w.heads},         {key::kKvHeads, w.kvHeads},
            {key::kFfnHidden, w.ffnHidden}, {key::kFfnActivation, toString(w.activation)},
            {key::kVocab, w.vocab},         {key::kSeqLen, w.seqLen}};
}

Json trainingJson(const Scenario& s, const MeasuredRunInput& in, std::int64_t dp)
{
    const Parallelism& p = s.parallelism;
    const char* recompute = recomputeName(p.recompute);
    Json t = {{key::kGlobalBatch, s.workload.globalBatch},
              {key::kMicroBatch, p.microBatch},
              {key::kTp, p.tp},
              {key::kPp, p.pp},
              {key::kDp, dp},
              {key::kCp, p.cp},
              {key::kEp, p.ep},
              {key::kVirtualStages, p.virtualStages},
              {key::kSequenceParallel, p.sequenceParallel},
              {key::kRecompute, recompute ? Json(recompute) : Json(nullptr)},
              {key::kPrecision, toString(s.workload.precision)},
              {key::kSoftware, displayName(in.framework)},
              {key::kSoftwareDate, toString(in.softwareDate)}};
    Json optimizations = Json::array();
    if (s.workload.parallelBlock)
        optimizations.push_back("parallel_block");
    if (s.workload.attentionWindow > 0)
        optimizations.push_back("sliding_window_attention");
    if (p.overlap.tpComm)
        optimizations.push_back("tp_comm_overlap");
    if (p.overlap.ppComm)
        optimizations.push_back("pp_comm_overlap");
    if (p.overlap.dpGradReduce)
        optimizations.push_back("dp_comm_overlap");
    t[key::kOptimizations] = optimizations;
    return t;
}

} // namespace

std::optional<Json> measuredRunJson(const Scenario& scenario, const Catalog& catalog,
                                    const MeasuredRunInput& in, std::string& error)
{
    const std::vector<std::int64_t> placed = placedGpusPerDatacenter(scenario);
    // The format describes one building's fabric: a job across buildings is described by the
    // building that hosts most of its GPUs, and the embedded scenario holds the rest (the other
    // buildings, the DCI links), which is what is evaluated. One accelerator, since a
    // calibration is of one.
    std::size_t at = 0;
    int hosting = 0;
    std::int64_t placedTotal = 0;
    const std::string* accelerator = nullptr;
    for (std::size_t i = 0; i < placed.size() && i < scenario.topology.datacenters.size(); ++i) {
        if (placed[i] <= 0)
            continue;
        const std::string& own = scenario.topology.datacenters[i].accelerator;
        if (accelerator && own != *accelerator) {
            error = "the job runs on more than one accelerator; a measured run calibrates one";
            return std::nullopt;
        }
        accelerator = &own;
        ++hosting;
        placedTotal += placed[i];
        if (placed[i] > placed[at] || placed[at] <= 0)
            at = i;
    }
    if (hosting == 0) {
        error = "the scenario places no GPU";
        return std::nullopt;
    }
    const Datacenter& dc = scenario.topology.datacenters.at(at);
    const AcceleratorSpec* acc = catalog.accelerator(dc.accelerator);
    const NicSpec* nic = catalog.nic(dc.fabric.nicModel);
    if (!acc) {
        error = "the accelerator \"" + dc.accelerator + "\" is not in the catalog";
        return std::nullopt;
    }
    const std::int64_t dp = dataParallel(scenario);
    const Parallelism& p = scenario.parallelism;
    const std::int64_t gpus = dp * p.tp * p.pp * p.cp;
    if (dp <= 0 || gpus != placedTotal) {
        error = "the scenario's degrees do not multiply to the GPUs it places";
        return std::nullopt;
    }
    // The whole scenario, as this program evaluates the run; without a calibration of its own
    // (a measured run calibrates, it is not calibrated).
    Scenario own = scenario;
    own.calibration.reset();
    const Json embedded = Json::parse(serializeScenario(own));
    const int domain = scaleUpDomainGpus(dc);
    const std::string spans =
        hosting > 1 ? "; the job spans " + std::to_string(hosting) +
                          " datacenters: the system fields describe the largest, " + dc.name +
                          ", and the scenario holds the others and the links between them"
                    : std::string();
    Json run = {{key::kId, in.id},
                {key::kSource, in.source},
                {key::kNotes, in.notes + spans},
                {key::kModel, modelJson(scenario.workload)},
                {key::kTraining, trainingJson(scenario, in, dp)},
                {key::kSystem,
                 {{key::kAccelerator, acc->name},
                  {key::kPeakDenseTflops, acc->peakTflopsBf16},
                  {key::kHbmGib, acc->hbmGib},
                  {key::kGpus, gpus},
                  {key::kGpusPerNode, gpus % domain == 0 ? domain : 1},
                  {key::kScaleUpGBps, acc->scaleUpGBpsPerDirection},
                  {key::kScaleOutGbps, (nic ? nic->gbps : acc->nicGbps) * dc.fabric.nicsPerGpu},
                  {key::kFabric,
                   {{key::kFabricKind, toString(dc.fabric.kind)},
                    {key::kTiers, dc.fabric.tiers},
                    {key::kOversubscription,
                     dc.fabric.leafOversubscription * dc.fabric.spineOversubscription}}}}},
                {key::kMeasured, {{key::kIterationTimeS, in.iterationS}}},
                {key::kScenario, embedded}};
    return run;
}

std::optional<std::string> withRunAppended(std::string_view existing, const std::string& file,
                                           const Json& run, std::string& error)
{
    Json doc;
    if (existing.find_first_not_of(" \t\r\n") == std::string_view::npos) {
        doc = {{key::kFormat, kPublishedRunsFormat},
               {key::kVersion, kPublishedRunsVersion},
               {key::kAbout, "Runs measured on our cluster (archipelago-cli measure)"},
               {key::kRuns, Json::array()}};
    } else {
        // The file must read as a runs file before anything is added to it.
        const PublishedRunsLoad load = parsePublishedRuns(existing, file);
        if (!load.ok()) {
            error = load.errors.front().toString();
            return std::nullopt;
        }
        const std::string id = run.value(key::kId, std::string());
        for (const PublishedRun& r : load.runs)
            if (r.id == id) {
                error = file + " already holds a run \"" + id + "\"; choose another --id";
                return std::nullopt;
            }
        doc = Json::parse(existing);
        if (doc.value(key::kVersion, 0) < kPublishedRunsVersion) {
            error = file + " is a runs file of version " +
                    std::to_string(doc.value(key::kVersion, 0)) + "; measured runs need version " +
                    std::to_string(kPublishedRunsVersion) + " (software_date)";
            return std::nullopt;
        }
    }
    doc[key::kRuns].push_back(run);
    const std::string text = doc.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
    // What is written must read back: the same reader calibrate uses.
    const PublishedRunsLoad check = parsePublishedRuns(text, file);
    if (!check.ok()) {
        error = check.errors.front().toString();
        return std::nullopt;
    }
    return text;
}

std::vector<std::string> argumentMismatches(const std::map<std::string, std::string>& arguments,
                                            const Scenario& s)
{
    std::vector<std::string> out;
    const auto check = [&](const char* name, const char* ours, long long value) {
        const auto it = arguments.find(name);
        if (it == arguments.end())
            return;
        std::string logged = it->second;
        // Megatron-LM prints None for an unset virtual pipeline size: one chunk per rank.
        if (logged == "None" && std::string(name) == "virtual_pipeline_model_parallel_size")
            logged = "1";
        if (logged != std::to_string(value))
            out.push_back(std::string("the log ran ") + name + " " + it->second +
                          ", the scenario has " + ours + " " + std::to_string(value));
    };
    const Parallelism& p = s.parallelism;
    const Workload& w = s.workload;
    check("tensor_model_parallel_size", "tp", p.tp);
    check("pipeline_model_parallel_size", "pp", p.pp);
    check("context_parallel_size", "cp", p.cp);
    check("expert_model_parallel_size", "ep", p.ep);
    check("data_parallel_size", "dp", dataParallel(s));
    check("virtual_pipeline_model_parallel_size", "virtual stages", p.virtualStages);
    check("micro_batch_size", "micro-batch", p.microBatch);
    check("global_batch_size", "global batch", w.globalBatch);
    check("seq_length", "sequence length", w.seqLen);
    check("num_layers", "layers", w.layers);
    check("hidden_size", "hidden", w.hidden);
    check("num_attention_heads", "heads", w.heads);
    check("ffn_hidden_size", "FFN hidden", w.ffnHidden);
    if (const auto it = arguments.find("sequence_parallel"); it != arguments.end())
        if ((it->second == "True") != p.sequenceParallel)
            out.push_back("the log ran sequence_parallel " + it->second +
                          ", the scenario has sequence parallelism " +
                          (p.sequenceParallel ? "on" : "off"));
    return out;
}

} // namespace archipelago::core
