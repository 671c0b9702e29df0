#include "validation/validationjson.h"

#include "validation/publishedrunsjson.h"

namespace archipelago::core {

nlohmann::json validationReportToJson(const ValidationReport& report)
{
    using nlohmann::json;
    using namespace runkeys;
    json runs = json::array();
    for (const RunComparison& r : report.runs) {
        json j{{kId, r.id},       {kMeasuredS, r.measuredS},     {kPredictedS, r.predictedS},
               {kError, r.error}, {kAssumptions, r.assumptions}, {kWarnings, r.warnings}};
        if (!r.ok) {
            // No prediction: a run that does not fit is not evaluated as if it did.
            j[kPredictedS] = nullptr;
            j[kError] = nullptr;
            j[kEvaluated] = false;
            j[kReason] = r.reason;
        }
        runs.push_back(std::move(j));
    }
    return {
        {kRuns, runs}, {kMeanAbsError, report.meanAbsError}, {kMaxAbsError, report.maxAbsError}};
}

} // namespace archipelago::core
