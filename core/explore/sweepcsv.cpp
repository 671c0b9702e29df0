#include "explore/sweepcsv.h"

#include "explore/spacejson.h"
#include "explore/sweepjson.h"
#include "explore/sweepkeys.h"
#include "io/csv.h"
#include "io/evaluationcsv.h"
#include "io/evaluationjson.h"

#include <algorithm>

namespace archipelago::core {

namespace {

using nlohmann::json;

// designPointToJson's knobs, then what the sweep adds about the point (sweepjson.cpp).
const std::vector<std::string> kPointColumns = {sweepkeys::kIndex,
                                                sweepkeys::kDescription,
                                                spacekeys::kDciTransport,
                                                spacekeys::kWavelengths,
                                                spacekeys::kFabric,
                                                spacekeys::kNcclChannels,
                                                spacekeys::kTp,
                                                spacekeys::kCp,
                                                spacekeys::kPp,
                                                spacekeys::kEp,
                                                spacekeys::kDp,
                                                sweepkeys::kDataParallel,
                                                spacekeys::kBoundary,
                                                spacekeys::kStageSplit,
                                                spacekeys::kRankOrder,
                                                spacekeys::kSequenceParallel,
                                                spacekeys::kVirtualStages,
                                                spacekeys::kMicroBatch,
                                                spacekeys::kGlobalBatch,
                                                spacekeys::kSchedule,
                                                spacekeys::kExtraInFlight,
                                                spacekeys::kRecompute,
                                                spacekeys::kZeroStage,
                                                spacekeys::kDistributedOptimizer,
                                                spacekeys::kGradReduceDtype,
                                                spacekeys::kDatacenterSync,
                                                spacekeys::kInnerSteps,
                                                spacekeys::kCheckpointIntervalS,
                                                evalkeys::kNetworkCapexUsd,
                                                evalkeys::kNetworkPowerW,
                                                sweepkeys::kTotalCostUsd,
                                                sweepkeys::kIterationTimeVsBase};

// The evaluation's columns but the network's: a swept point's evaluation is the lean one, whose
// capex and power the point's own columns above give (made once per topology variant).
bool pointOwnsColumn(const std::string& column)
{
    return column == evalkeys::kNetworkCapexUsd || column == evalkeys::kNetworkPowerW;
}

json valueOr(const json& object, const char* key)
{
    return object.is_object() && object.contains(key) ? object.at(key) : json();
}

std::string pointRow(const std::string& list, const std::string& rank, const json& point)
{
    std::vector<std::string> cells{list, rank};
    for (const std::string& key : kPointColumns)
        cells.push_back(csvCell(valueOr(point, key.c_str())));
    const std::vector<std::string> evaluation =
        evaluationCsvCells(valueOr(point, sweepkeys::kEvaluation));
    const std::vector<std::string>& names = evaluationCsvColumns();
    for (std::size_t i = 0; i < names.size() && i < evaluation.size(); ++i)
        if (!pointOwnsColumn(names[i]))
            cells.push_back(evaluation[i]);
    return csvRecord(cells);
}

std::string listRows(const std::string& list, const json& points)
{
    std::string text;
    if (!points.is_array())
        return text;
    for (std::size_t i = 0; i < points.size(); ++i)
        text += pointRow(list, std::to_string(i + 1), points[i]);
    return text;
}

} // namespace

const std::vector<std::string>& sweepCsvColumns()
{
    static const std::vector<std::string> kColumns = [] {
        std::vector<std::string> c{"list", "rank"};
        c.insert(c.end(), kPointColumns.begin(), kPointColumns.end());
        for (const std::string& name : evaluationCsvColumns())
            if (!pointOwnsColumn(name))
                c.push_back(name);
        return c;
    }();
    return kColumns;
}

std::string sweepJsonToCsv(const json& sweep)
{
    std::string text = csvRecord(sweepCsvColumns());
    using namespace sweepkeys;
    text += pointRow("base", csvCell(valueOr(sweep, kBaseRank)), valueOr(sweep, kBase));
    // The top lists in the objectives' order (SweepObjective), then the fronts in the JSON's.
    const json byObjective = valueOr(sweep, kTopByObjective);
    for (std::size_t k = 0; k < kSweepObjectives; ++k) {
        const char* objective = toString(static_cast<SweepObjective>(k));
        text += listRows(std::string("top_") + objective, valueOr(byObjective, objective));
    }
    const json fronts = valueOr(sweep, kFronts);
    if (fronts.is_object())
        for (const auto& [name, points] : fronts.items())
            text += listRows("front_" + name, points);
    return text;
}

std::string sweepResultToCsv(const std::string& file, const SweepResult& result)
{
    return sweepJsonToCsv(sweepResultToJson(file, result));
}

} // namespace archipelago::core
