#include "io/evaluationjson.h"

#include <cmath>

namespace archipelago::core {

namespace {

using nlohmann::json;
using namespace evalkeys;

json breakdownJson(const Breakdown& b)
{
    return {{kForwardS, b.forwardS},
            {kBackwardS, b.backwardS},
            {kRecomputeS, b.recomputeS},
            {kTpCommS, b.tpCommS},
            {kCpCommS, b.cpCommS},
            {kEpCommS, b.epCommS},
            {kPpCommS, b.ppCommS},
            {kDpCommS, b.dpCommS},
            {kOptimizerS, b.optimizerS},
            {kBubbleS, b.bubbleS},
            {kInterferenceS, b.interferenceS},
            {kVariabilityS, b.variabilityS},
            {kOverheadS, b.overheadS}};
}

json memoryJson(const MemoryBreakdown& m)
{
    return {{kWeightsGib, m.weightsGib},     {kGradientsGib, m.gradientsGib},
            {kOptimizerGib, m.optimizerGib}, {kActivationsGib, m.activationsGib},
            {kOtherGib, m.otherGib},         {kInFlightMicroBatches, m.inFlightMicroBatches},
            {kWorstStage, m.worstStage}};
}

json bomJson(const std::vector<BomItem>& items)
{
    json bom = json::array();
    for (const BomItem& item : items)
        bom.push_back({{kItem, item.item},
                       {kCategory, item.category},
                       {kScope, item.scope},
                       {kCount, item.count},
                       {kUnitPriceUsd, item.unitPriceUsd},
                       {kUnitWatts, item.unitWatts},
                       {kCapexUsd, item.capexUsd()},
                       {kPowerW, item.powerW()}});
    return bom;
}

json trafficJson(const std::vector<LinkTraffic>& traffic)
{
    json out = json::array();
    for (const LinkTraffic& t : traffic) {
        json j{{kLinkClass, toString(t.linkClass)},
               {kBytesPerIteration, t.bytesPerIteration},
               {kBusyS, t.busyS},
               {kUtilisation, t.utilisation}};
        if (t.dciLinkId >= 0) {
            j[kDciLink] = t.dciLinkId;
            j[kBytesAToB] = t.bytesAToB;
            j[kBytesBToA] = t.bytesBToA;
            j[kBusyAToBS] = t.busyAToBS;
            j[kBusyBToAS] = t.busyBToAS;
        }
        out.push_back(std::move(j));
    }
    return out;
}

// Infinite figures (no failures: no MTBF, no interval) are null.
json finiteOrNull(double v)
{
    return std::isfinite(v) ? json(v) : json();
}

json goodputJson(const Goodput& g)
{
    return {{kInterruptionsPerDay, g.interruptionsPerDay},
            {kMtbfS, finiteOrNull(g.mtbfS)},
            {kCheckpointBytes, g.checkpointBytes},
            {kCheckpointBlockingS, g.checkpointBlockingS},
            {kCheckpointWriteS, g.checkpointWriteS},
            {kCheckpointIntervalS, finiteOrNull(g.checkpointIntervalS)},
            {kRestartS, g.restartS},
            {kEttr, g.ettr},
            {kEffectiveTimeToTrainS, g.effectiveTimeToTrainS},
            {kEffectiveGpuHours, g.effectiveGpuHours},
            {kUsefulS, g.usefulS},
            {kCheckpointsS, g.checkpointS},
            {kRestartsS, g.restartTotalS},
            {kLostWorkS, g.lostWorkS},
            {kConvergenceS, g.convergenceS},
            {kDegradedS, finiteOrNull(g.degradedS)},
            {kReplicaBytes, g.replicaBytes},
            {kReplicaS, finiteOrNull(g.replicaS)},
            {kStalledShare, g.stalledShare},
            {kInterruptionsByDomain,
             {{kServers, g.serverInterruptionsPerDay},
              {kFabric, g.fabricInterruptionsPerDay},
              {kDci, g.dciInterruptionsPerDay},
              {kBuildings, g.buildingInterruptionsPerDay}}},
            {kDegradationsPerDay, g.degradationsPerDay},
            {kAbsorbedPerDay, g.absorbedPerDay}};
}

json runCostJson(const RunCost& c)
{
    return {{kPriced, c.priced},
            {kRented, c.rented},
            {kCapexUsd, c.capexUsd},
            {kItPowerW, c.itPowerW},
            {kOwnershipUsdPerHour, c.ownershipUsdPerHour},
            {kFacilityUsdPerHour, c.facilityUsdPerHour},
            {kEnergyUsdPerHour, c.energyUsdPerHour},
            {kUsdPerHour, c.usdPerHour},
            {kUsdPerGpuHour, c.usdPerGpuHour},
            {kRunCostUsd, c.runCostUsd},
            {kEffectiveRunCostUsd, c.effectiveRunCostUsd}};
}

json datacenterSyncJson(const DatacenterSyncResult& d)
{
    return {{kSyncScheme, toString(d.scheme)},        {kSyncReplicas, d.replicas},
            {kSyncInnerSteps, d.innerSteps},          {kSyncFragments, d.fragments},
            {kOuterBytesPerGpu, d.outerBytesPerGpu},  {kOuterStepS, d.outerStepS},
            {kOuterExposedS, d.outerExposedS},        {kLossRatio, d.lossRatio},
            {kComputeMultiplier, d.computeMultiplier}};
}

// The calibration in effect (null: the catalog's parameters), as its file gives it.
json calibrationJson(const std::optional<Calibration>& c)
{
    if (!c)
        return nullptr;
    json fitted = json::object();
    for (const auto& [name, value] : c->fitted)
        fitted[name] = value;
    return {{"file", c->file},
            {"accelerator", c->accelerator},
            {"runs", c->runs},
            {"fitted", fitted},
            {"in_sample_mean", c->inSampleMeanError},
            {"in_sample_max", c->inSampleMaxError},
            {"leave_one_out_mean", c->leaveOneOutMeanError},
            {"leave_one_out_max", c->leaveOneOutMaxError}};
}

} // namespace

json evaluationToJson(const std::string& file, const Evaluation& ev)
{
    json warnings = json::array();
    for (const Warning& w : ev.warnings)
        warnings.push_back(warningText(w));
    return {{kFile, file},
            {kOk, ev.ok},
            {kIterationTimeS, ev.iterationTimeS},
            {kBubbleRatio, ev.bubbleRatio},
            {kIdleOverCompute, ev.idleOverCompute},
            {kMfu, ev.mfu},
            {kHfu, ev.hfu},
            {kTokensPerS, ev.tokensPerS},
            {kModelFlops, ev.modelFlopsPerIteration},
            {kHardwareFlops, ev.hardwareFlopsPerIteration},
            {kMemoryPeakGib, ev.memoryPeakGib},
            {kFitsInMemory, ev.fitsInMemory},
            {kHbmGib, ev.hbmGib},
            {kMemory, memoryJson(ev.memory)},
            {kNetworkCapexUsd, ev.networkCapexUsd},
            {kNetworkPowerW, ev.networkPowerW},
            {kBreakdown, breakdownJson(ev.breakdown)},
            {kBom, bomJson(ev.bom)},
            {kTraffic, trafficJson(ev.traffic)},
            {kTimeToTrainS, ev.timeToTrainS},
            {kGpuHours, ev.gpuHoursToTrain},
            {kDatacenterSyncResult, datacenterSyncJson(ev.datacenterSync)},
            {kGoodput, goodputJson(ev.goodput)},
            {kRunCost, runCostJson(ev.runCost)},
            {kGpus, ev.gpus},
            {kWarnings, warnings},
            {kAssumptions, ev.assumptions},
            {kCalibration, calibrationJson(ev.calibration)}};
}

} // namespace archipelago::core
