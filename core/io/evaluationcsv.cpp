#include "io/evaluationcsv.h"

#include "io/csv.h"
#include "io/evaluationjson.h"

#include <utility>

namespace archipelago::core {

namespace {

using nlohmann::json;
using namespace evalkeys;

// A column and where its value sits in evaluationToJson's object.
struct Column
{
    std::string name;
    json::json_pointer pointer;
};

json::json_pointer at(std::initializer_list<const char*> keys)
{
    json::json_pointer p;
    for (const char* key : keys)
        p /= key;
    return p;
}

const std::vector<Column>& columns()
{
    static const std::vector<Column> kColumns = [] {
        std::vector<Column> c;
        for (const char* key :
             {kOk, kIterationTimeS, kTokensPerS, kMfu, kHfu, kBubbleRatio, kIdleOverCompute,
              kMemoryPeakGib, kHbmGib, kFitsInMemory, kNetworkCapexUsd, kNetworkPowerW,
              kTimeToTrainS, kGpuHours, kGpus, kModelFlops, kHardwareFlops})
            c.push_back({key, at({key})});
        for (const char* key : {kForwardS, kBackwardS, kRecomputeS, kTpCommS, kCpCommS, kEpCommS,
                                kPpCommS, kDpCommS, kOptimizerS, kBubbleS, kInterferenceS})
            c.push_back({key, at({kBreakdown, key})});
        for (const char* key : {kEttr, kEffectiveTimeToTrainS, kInterruptionsPerDay})
            c.push_back({std::string(kGoodput) + "_" + key, at({kGoodput, key})});
        for (const char* key : {kServers, kFabric, kDci, kBuildings})
            c.push_back({std::string(kGoodput) + "_" + kInterruptionsPerDay + "_" + key,
                         at({kGoodput, kInterruptionsByDomain, key})});
        c.push_back({std::string(kGoodput) + "_" + kDegradedS, at({kGoodput, kDegradedS})});
        for (const char* key : {kUsdPerGpuHour, kEffectiveRunCostUsd})
            c.push_back({std::string(kRunCost) + "_" + key, at({kRunCost, key})});
        for (const char* key : {kSyncScheme, kOuterExposedS, kComputeMultiplier})
            c.push_back(
                {std::string(kDatacenterSyncResult) + "_" + key, at({kDatacenterSyncResult, key})});
        for (const char* key : {kWeightsGib, kGradientsGib, kOptimizerGib, kActivationsGib,
                                kOtherGib, kInFlightMicroBatches, kWorstStage})
            c.push_back({std::string(kMemory) + "_" + key, at({kMemory, key})});
        // The calibration in effect: its file (empty: the catalog's) and its leave-one-out error.
        c.push_back({kCalibration, at({kCalibration, "file"})});
        c.push_back({std::string(kCalibration) + "_leave_one_out_mean",
                     at({kCalibration, "leave_one_out_mean"})});
        c.push_back({kWarnings, at({kWarnings})});
        return c;
    }();
    return kColumns;
}

const std::vector<std::string> kKnobColumns = {"tp",
                                               "cp",
                                               "pp",
                                               "ep",
                                               "dp",
                                               "virtual_stages",
                                               "micro_batch",
                                               "micro_batches_per_iteration",
                                               "global_batch",
                                               "sequence_parallel",
                                               "schedule",
                                               "extra_in_flight_at_dci",
                                               "recompute",
                                               "zero_stage",
                                               "distributed_optimizer"};

void appendTo(std::vector<std::string>& row, std::vector<std::string> more)
{
    row.insert(row.end(), std::make_move_iterator(more.begin()),
               std::make_move_iterator(more.end()));
}

} // namespace

const std::vector<std::string>& evaluationCsvColumns()
{
    static const std::vector<std::string> kNames = [] {
        std::vector<std::string> names;
        for (const Column& c : columns())
            names.push_back(c.name);
        return names;
    }();
    return kNames;
}

std::vector<std::string> evaluationCsvCells(const json& evaluation)
{
    std::vector<std::string> cells;
    cells.reserve(columns().size());
    for (const Column& c : columns()) {
        // Warnings are sentences: "; " between them reads better than the knobs' "/".
        const char* separator = c.name == kWarnings ? "; " : "/";
        cells.push_back(evaluation.is_object() && evaluation.contains(c.pointer)
                            ? csvCell(evaluation.at(c.pointer), separator)
                            : std::string());
    }
    return cells;
}

std::string evaluationsToCsv(const json& evaluations)
{
    std::vector<std::string> header{kFile};
    appendTo(header, evaluationCsvColumns());
    std::string text = csvRecord(header);
    const auto row = [&text](const json& ev) {
        std::vector<std::string> cells{ev.is_object() ? csvCell(ev.value(kFile, json()))
                                                      : std::string()};
        appendTo(cells, evaluationCsvCells(ev));
        text += csvRecord(cells);
    };
    if (evaluations.is_array()) {
        for (const json& ev : evaluations)
            row(ev);
    } else {
        row(evaluations);
    }
    return text;
}

std::string evaluationToCsv(const std::string& file, const Evaluation& evaluation)
{
    return evaluationsToCsv(evaluationToJson(file, evaluation));
}

json scenarioKnobsToJson(const Scenario& s)
{
    const Parallelism& p = s.parallelism;
    return {{"tp", p.tp},
            {"cp", p.cp},
            {"pp", p.pp},
            {"ep", p.ep},
            {"dp", dataParallel(s)},
            {"virtual_stages", p.virtualStages},
            {"micro_batch", p.microBatch},
            {"micro_batches_per_iteration", microBatchesPerIteration(s)},
            {"global_batch", s.workload.globalBatch},
            {"sequence_parallel", p.sequenceParallel},
            {"schedule", toString(s.schedule.kind)},
            {"extra_in_flight_at_dci", s.schedule.extraInFlightAtDci},
            {"recompute", toString(p.recompute)},
            {"zero_stage", p.zeroStage},
            {"distributed_optimizer", p.distributedOptimizer}};
}

const std::vector<std::string>& scenarioKnobColumns()
{
    return kKnobColumns;
}

json comparisonToJson(const std::vector<ComparedPoint>& points)
{
    json out = json::array();
    for (const ComparedPoint& p : points) {
        json evaluation;
        if (p.evaluation) {
            evaluation = evaluationToJson("", *p.evaluation);
            evaluation.erase(kFile);
        }
        out.push_back({{"name", p.name},
                       {"color", p.color},
                       {"knobs", p.scenario ? scenarioKnobsToJson(*p.scenario) : json()},
                       {"evaluation", std::move(evaluation)}});
    }
    return out;
}

std::string comparisonToCsv(const std::vector<ComparedPoint>& points)
{
    std::vector<std::string> header{"name", "color"};
    appendTo(header, scenarioKnobColumns());
    appendTo(header, evaluationCsvColumns());
    std::string text = csvRecord(header);
    for (const json& p : comparisonToJson(points)) {
        std::vector<std::string> cells{csvCell(p["name"]), csvCell(p["color"])};
        const json& knobs = p["knobs"];
        for (const std::string& key : scenarioKnobColumns())
            cells.push_back(knobs.is_object() ? csvCell(knobs.value(key, json())) : std::string());
        appendTo(cells, evaluationCsvCells(p["evaluation"]));
        text += csvRecord(cells);
    }
    return text;
}

} // namespace archipelago::core
