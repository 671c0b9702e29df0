// Placement analysis (issue 4 item 2). Ranks are laid out per datacenter in the scenario's rank
// order (innermost first) over consecutive scale-up domains, domains fill leaves, leaves fill
// pods (spine blocks). A group with members at a fixed rank stride therefore has, per container
// (domain, leaf, pod, datacenter), a computable number of members; the ratios between successive
// containers are the participants of a hierarchical collective's levels. Datacenters are joined
// by DCI routes whose capacity is shared by every flow crossing them at the same time.
#include "network/placement.h"

#include "model/topologygraph.h"
#include "network/dcimodel.h"
#include "network/fabric.h"
#include "network/placementlayout.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numeric>

namespace archipelago::core {

int GroupPath::size() const
{
    int n = 1;
    for (const LevelLink& level : levels)
        n *= std::max(1, level.participants);
    return n;
}

bool GroupPath::crossesDci() const
{
    return std::any_of(levels.begin(), levels.end(),
                       [](const LevelLink& l) { return l.linkClass == LinkClass::Dci; });
}

namespace {

using detail::DciLoads;
using detail::DcLayout;

// Slowest of two candidate paths for the same group: a 1 GB hierarchical all-reduce proxy.
const GroupPath& slower(const GroupPath& a, const GroupPath& b)
{
    return detail::allReduceProxyS(b) > detail::allReduceProxyS(a) ? b : a;
}

// Per-stage view of the data-parallel replicas: which datacenters hold stage i, how many.
struct StageReplicas
{
    std::vector<Id> dcs; // in order of first appearance
    std::vector<std::int64_t> counts;
    std::int64_t smallest() const
    {
        return counts.empty() ? 0 : *std::min_element(counts.begin(), counts.end());
    }
    Id smallestDc() const
    {
        return dcs[static_cast<std::size_t>(std::min_element(counts.begin(), counts.end()) -
                                            counts.begin())];
    }
};

class Analyzer
{
public:
    Analyzer(const Scenario& scenario, const Catalog& catalog, const TopologyModel* model)
        : s_(scenario)
        , own_(model ? nullptr
                     : std::make_unique<TopologyModel>(scenario.topology, catalog,
                                                       TopologyModel::Ownership::Borrow, false))
        , ctx_{scenario, catalog, model ? *model : *own_, model ? model->graph() : own_->graph(),
               {},       {}}
    {}

    PlacementAnalysis run();

private:
    bool prepare();
    void analyzeDenseGroups(PlacementAnalysis& out);
    GroupPath gradientPath(int stage, bool expert, const DciLoads& loads);
    void accumulateGradientLoads(DciLoads& loads);
    void analyzeBoundaries(PlacementAnalysis& out);
    void analyzeSplitGroups(PlacementAnalysis& out);

    const Scenario& s_;
    std::unique_ptr<TopologyModel> own_; // when the caller has none cached

    detail::Context ctx_;
    std::vector<PlacementShard> shards_;
    std::vector<PlacementShard> splitShards_; // shards whose TP or CP group spans datacenters
    std::vector<StageReplicas> stages_;
    int pp_ = 1;
};

bool Analyzer::prepare()
{
    const Parallelism& par = s_.parallelism;
    pp_ = std::max(1, par.pp);
    if (s_.topology.datacenters.empty()) {
        ctx_.warnings.push_back({WarningCode::PlacementInvalid, "the topology has no datacenter"});
        return false;
    }
    shards_ = effectiveShards(s_);
    stages_.assign(static_cast<std::size_t>(pp_), {});
    const Id firstDc = s_.topology.datacenters.front().id;
    for (PlacementShard& shard : shards_) {
        if (static_cast<int>(shard.stageDatacenters.size()) != pp_) {
            ctx_.warnings.push_back({WarningCode::PlacementInvalid,
                                     "a shard lists " +
                                         std::to_string(shard.stageDatacenters.size()) +
                                         " stage datacenters for PP " + std::to_string(pp_)});
            shard.stageDatacenters.resize(
                static_cast<std::size_t>(pp_),
                shard.stageDatacenters.empty() ? firstDc : shard.stageDatacenters.back());
        }
        for (Id& dc : shard.stageDatacenters)
            if (!findDatacenter(s_.topology, dc)) {
                ctx_.warnings.push_back(
                    {WarningCode::PlacementInvalid,
                     "stage placed in unknown datacenter " + std::to_string(dc)});
                dc = firstDc;
            }
        if (shard.split()) {
            const bool tp = shard.splitDim == ParallelDim::Tp;
            const int degree = tp ? par.tp : par.cp;
            const auto k = static_cast<int>(shard.splitDatacenters.size());
            const bool known =
                std::all_of(shard.splitDatacenters.begin(), shard.splitDatacenters.end(),
                            [&](Id dc) { return findDatacenter(s_.topology, dc) != nullptr; });
            if (!known || (!tp && shard.splitDim != ParallelDim::Cp) || degree % k != 0) {
                ctx_.warnings.push_back({WarningCode::PlacementInvalid,
                                         "a shard's split across datacenters is invalid "
                                         "(unknown datacenter, dimension not tp or cp, or k "
                                         "not dividing the degree): ignored"});
                shard.splitDatacenters.clear();
            }
        }
        if (shard.dpReplicas <= 0)
            continue;
        for (int i = 0; i < pp_; ++i) {
            StageReplicas& st = stages_[static_cast<std::size_t>(i)];
            const Id dc = shard.stageDatacenters[static_cast<std::size_t>(i)];
            const auto it = std::find(st.dcs.begin(), st.dcs.end(), dc);
            if (it == st.dcs.end()) {
                st.dcs.push_back(dc);
                st.counts.push_back(shard.dpReplicas);
            } else {
                st.counts[static_cast<std::size_t>(it - st.dcs.begin())] += shard.dpReplicas;
            }
        }
    }
    if (dataParallel(s_) <= 0 || stages_.front().dcs.empty()) {
        ctx_.warnings.push_back({WarningCode::PlacementInvalid,
                                 "no data-parallel replica: the GPU count is not a multiple "
                                 "of TP x CP x PP, or the shards hold no replica"});
        return false;
    }
    // Per-datacenter layout sizes: the most replicas of any stage and the most stages of any
    // shard placed there.
    for (const StageReplicas& st : stages_)
        for (std::size_t k = 0; k < st.dcs.size(); ++k) {
            DcLayout& layout = detail::layoutFor(ctx_, st.dcs[k]);
            layout.dpLocal = std::max(layout.dpLocal, st.counts[k]);
        }
    for (const PlacementShard& shard : shards_)
        for (const Id dc : shard.stageDatacenters) {
            const auto n =
                std::count(shard.stageDatacenters.begin(), shard.stageDatacenters.end(), dc);
            DcLayout& layout = detail::layoutFor(ctx_, dc);
            layout.ppLocal = std::max<std::int64_t>(layout.ppLocal, n);
        }
    // A split shard holds every one of its stages, dpReplicas times, in each split datacenter
    // (a slice of degree/k ranks of the split dimension each). Its pipeline boundaries join
    // slices in the same datacenter, so for boundaries it is placed wholly in its first split
    // datacenter; stageDatacenters only names the stage's home for drawing.
    for (PlacementShard& shard : shards_) {
        if (!shard.split() || shard.dpReplicas <= 0)
            continue;
        for (const Id dc : shard.splitDatacenters) {
            DcLayout& layout = detail::layoutFor(ctx_, dc);
            layout.dpLocal = std::max<std::int64_t>(layout.dpLocal, shard.dpReplicas);
            layout.ppLocal = std::max<std::int64_t>(layout.ppLocal, pp_);
        }
        splitShards_.push_back(shard);
        shard.stageDatacenters.assign(static_cast<std::size_t>(pp_),
                                      shard.splitDatacenters.front());
    }
    return true;
}

void Analyzer::analyzeDenseGroups(PlacementAnalysis& out)
{
    const Parallelism& par = s_.parallelism;
    bool first = true;
    for (auto& [id, layout] : ctx_.layouts) {
        const auto dense = detail::denseSizes(par, layout);
        const auto expert = detail::expertSizes(par, layout);
        const auto& order = s_.placement.rankOrder;
        GroupPath tp{detail::intraLevels(layout, detail::stride(order, ParallelDim::Tp, dense),
                                         par.tp, false)};
        GroupPath cp{detail::intraLevels(layout, detail::stride(order, ParallelDim::Cp, dense),
                                         par.cp, false)};
        // EP: ep consecutive ranks of the (cp x dp) space (Megatron-core expert rank
        // generator: cp folded into the expert data-parallel dimension).
        const std::int64_t expertSpace = layout.dpLocal * par.cp;
        const std::int64_t epLocal = std::gcd(std::int64_t{std::max(1, par.ep)}, expertSpace);
        GroupPath ep{detail::intraLevels(layout, detail::stride(order, ParallelDim::Ep, expert),
                                         epLocal, true)};
        if (epLocal < par.ep && stages_.front().dcs.size() > 1) {
            ep.levels.push_back(detail::dciLevel(
                ctx_, {stages_.front().dcs[0], stages_.front().dcs[1]},
                static_cast<double>(std::int64_t{par.tp} * par.cp * stages_.front().smallest()),
                static_cast<int>(par.ep / epLocal), nullptr));
            ctx_.warnings.push_back({WarningCode::EpCrossesDc,
                                     "EP " + std::to_string(par.ep) + " does not divide the " +
                                         std::to_string(expertSpace) + " expert ranks of " +
                                         layout.dc->name +
                                         ": expert all-to-all crosses the datacenter link"});
        }
        out.tp = first ? tp : slower(out.tp, tp);
        out.cp = first ? cp : slower(out.cp, cp);
        out.ep = first ? ep : slower(out.ep, ep);
        first = false;
        if (par.tp > layout.fabric.gpusPerDomain || tp.levels.size() > 1)
            ctx_.warnings.push_back({WarningCode::TpExceedsScaleUp,
                                     "TP " + std::to_string(par.tp) + " does not fit the " +
                                         std::to_string(layout.fabric.gpusPerDomain) +
                                         "-GPU scale-up domain of " + layout.dc->name +
                                         ": its collectives cross the " +
                                         toString(tp.levels.back().linkClass) + " tier at " +
                                         detail::formatNumber(tp.levels.back().bandwidthGBps) +
                                         " GB/s per GPU instead of " +
                                         detail::formatNumber(layout.scaleUpGBps) + " GB/s"});
        detail::warnCrossRail(ctx_, layout, ep, "EP all-to-all");
    }
}

void Analyzer::analyzeSplitGroups(PlacementAnalysis& out)
{
    // A split TP (CP) group has degree/k members inside each split datacenter (the levels an
    // unsplit group of that size would have) and an outermost DCI level of k participants. Every
    // GPU of the shard runs such a collective at once, so the GPUs the shard holds per datacenter
    // share the route (the DP-across-datacenters rule of gradientPath, per GPU here).
    const Parallelism& par = s_.parallelism;
    for (const PlacementShard& shard : splitShards_) {
        const bool tp = shard.splitDim == ParallelDim::Tp;
        const int degree = tp ? par.tp : par.cp;
        const auto k = static_cast<int>(shard.splitDatacenters.size());
        Parallelism local = par;
        (tp ? local.tp : local.cp) = degree / k;
        const double flows =
            static_cast<double>(std::int64_t{par.tp} * par.cp * shard.dpReplicas * pp_ / k);
        GroupPath worst;
        bool have = false;
        for (const Id dc : shard.splitDatacenters) {
            const DcLayout& layout = detail::layoutFor(ctx_, dc);
            const auto sizes = detail::denseSizes(local, layout);
            const ParallelDim dim = tp ? ParallelDim::Tp : ParallelDim::Cp;
            GroupPath path{detail::intraLevels(
                layout, detail::stride(s_.placement.rankOrder, dim, sizes), degree / k, false)};
            path.levels.push_back(
                detail::dciLevel(ctx_, shard.splitDatacenters, flows, k, nullptr));
            worst = have ? slower(worst, path) : path;
            have = true;
        }
        GroupPath& target = tp ? out.tp : out.cp;
        target = slower(target, worst);
        detail::warnSplit(ctx_, shard.splitDim, degree, worst.levels.back());
    }
}

void Analyzer::accumulateGradientLoads(DciLoads& loads)
{
    // Gradient reduction runs for every stage at the end of the iteration: every DP group of
    // every stage whose replicas sit in several datacenters crosses DCI at the same time, one
    // ring per GPU of the smallest local share (hierarchical all-reduce).
    const Parallelism& par = s_.parallelism;
    for (const StageReplicas& st : stages_)
        if (st.dcs.size() > 1)
            detail::addRingLoads(ctx_, st.dcs,
                                 static_cast<double>(std::int64_t{par.tp} * par.cp * st.smallest()),
                                 loads);
}

GroupPath Analyzer::gradientPath(int stage, bool expert, const DciLoads& loads)
{
    const Parallelism& par = s_.parallelism;
    const StageReplicas& st = stages_[static_cast<std::size_t>(stage)];
    const DcLayout& layout = ctx_.layouts.at(st.smallestDc());
    const auto& order = s_.placement.rankOrder;
    const int ep = std::max(1, par.ep);
    GroupPath path;
    if (expert) {
        // Expert DP = dp * cp / ep (Megatron-core: cp folded into expert data parallelism).
        const std::int64_t n = std::max<std::int64_t>(1, st.smallest() * par.cp / ep);
        path.levels = detail::intraLevels(
            layout, detail::stride(order, ParallelDim::Dp, detail::expertSizes(par, layout)), n,
            false);
    } else {
        path.levels = detail::intraLevels(
            layout, detail::stride(order, ParallelDim::Dp, detail::denseSizes(par, layout)),
            st.smallest(), false);
    }
    if (st.dcs.size() > 1)
        path.levels.push_back(
            detail::dciLevel(ctx_, st.dcs, 0.0, static_cast<int>(st.dcs.size()), &loads));
    return path;
}

void Analyzer::analyzeBoundaries(PlacementAnalysis& out)
{
    const bool interleaved = s_.schedule.kind == ScheduleKind::Interleaved1F1B;
    DciLoads loads;
    // Pass 1: every cross-datacenter boundary of every shard loads the directed links of its
    // route with the GPUs that send at once (tp * cp per replica).
    const double perReplica =
        static_cast<double>(std::int64_t{s_.parallelism.tp} * s_.parallelism.cp);
    for (const PlacementShard& shard : shards_) {
        const auto& sd = shard.stageDatacenters;
        for (int i = 0; i + 1 < pp_ || (interleaved && i + 1 == pp_ && pp_ > 1); ++i) {
            const Id a = sd[static_cast<std::size_t>(i)];
            const Id b = sd[static_cast<std::size_t>((i + 1) % pp_)];
            if (a != b)
                detail::addRouteLoads(ctx_, a, b, perReplica * shard.dpReplicas, loads);
        }
    }
    // Pass 2: each boundary takes its slowest shard.
    out.stageBoundaries.assign(static_cast<std::size_t>(pp_ - 1), LevelLink{});
    for (int i = 0; i < pp_; ++i) {
        const bool wrap = i + 1 == pp_;
        if (wrap && pp_ == 1)
            break;
        LevelLink worst;
        bool have = false;
        for (const PlacementShard& shard : shards_) {
            if (shard.dpReplicas <= 0)
                continue;
            LevelLink link = detail::boundaryLink(ctx_, s_, shard, i, wrap, loads);
            if (!have || detail::transferProxyS(link) > detail::transferProxyS(worst))
                worst = link;
            have = true;
        }
        if (wrap)
            out.wrapBoundary = worst;
        else
            out.stageBoundaries[static_cast<std::size_t>(i)] = worst;
        if (worst.linkClass == LinkClass::Dci && (!wrap || interleaved))
            detail::warnBoundary(ctx_, i, wrap ? 0 : i + 1, worst);
    }
}

PlacementAnalysis Analyzer::run()
{
    PlacementAnalysis out;
    if (!prepare()) {
        out.warnings = std::move(ctx_.warnings);
        return out;
    }
    analyzeDenseGroups(out);
    analyzeSplitGroups(out);

    DciLoads gradientLoads;
    accumulateGradientLoads(gradientLoads);
    for (int i = 0; i < pp_; ++i) {
        const GroupPath dp = gradientPath(i, false, gradientLoads);
        const GroupPath edp = gradientPath(i, true, gradientLoads);
        out.dp = i == 0 ? dp : slower(out.dp, dp);
        out.expertDp = i == 0 ? edp : slower(out.expertDp, edp);
    }
    detail::warnShared(ctx_, out.dp, "DP all-reduce");
    analyzeBoundaries(out);
    out.warnings = std::move(ctx_.warnings);
    return out;
}

} // namespace

PlacementAnalysis analyzePlacement(const Scenario& scenario, const Catalog& catalog,
                                   const TopologyModel* model)
{
    return Analyzer(scenario, catalog, model).run();
}

} // namespace archipelago::core
