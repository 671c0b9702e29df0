// Placement analysis. Ranks are laid out per datacenter in the scenario's rank
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
#include <stdexcept>

namespace archipelago::core {

LevelList::LevelList(std::initializer_list<LevelLink> levels)
{
    for (const LevelLink& level : levels)
        push_back(level);
}

void LevelList::push_back(const LevelLink& level)
{
    if (m_size == kCapacity)
        throw std::logic_error("a group path has more than 8 levels");
    m_levels[m_size++] = level;
}

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

void splitAtDatacenters(const GroupPath& path, GroupPath& inside, GroupPath& across)
{
    inside = GroupPath{};
    across = GroupPath{};
    bool crossed = false;
    for (const LevelLink& level : path.levels) {
        crossed = crossed || level.linkClass == LinkClass::Dci;
        (crossed ? across : inside).levels.push_back(level);
    }
}

void splitGroupPath(const GroupPath& path, int instances, GroupPath& inner, GroupPath& outer)
{
    inner = GroupPath{};
    outer = GroupPath{};
    int left = std::max(1, path.size() / std::max(1, instances)); // members of one instance
    for (const LevelLink& level : path.levels) {
        const int p = std::max(1, level.participants);
        if (left >= p && left % p == 0) {
            inner.levels.push_back(level);
            left /= p;
        } else if (left > 1 && p % left == 0) {
            // The cut falls inside this level: `left` of its members per instance, the rest
            // of its members in the other instances, over the same links.
            LevelLink in = level;
            in.participants = left;
            LevelLink out = level;
            out.participants = p / left;
            inner.levels.push_back(in);
            outer.levels.push_back(out);
            left = 1;
        } else {
            outer.levels.push_back(level);
        }
    }
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
    Analyzer(const Scenario& scenario, const Catalog& catalog, const TopologyModel* model,
             bool warnings)
        : m_scenario(scenario)
        , m_own(model ? nullptr
                      : std::make_unique<TopologyModel>(scenario.topology, catalog,
                                                        TopologyModel::Ownership::Borrow, false))
        , m_ctx{scenario,
                catalog,
                model ? *model : *m_own,
                model ? model->graph() : m_own->graph(),
                {},
                {},
                {},
                warnings}
    {}

    PlacementAnalysis run();

private:
    bool prepare();
    void analyzeDenseGroups(PlacementAnalysis& out);
    GroupPath gradientPath(int stage, bool expert, const DciLoads& loads);
    void accumulateGradientLoads(DciLoads& loads);
    void analyzeBoundaries(PlacementAnalysis& out);
    void analyzeSplitGroups(PlacementAnalysis& out);

    const Scenario& m_scenario;
    std::unique_ptr<TopologyModel> m_own; // when the caller has none cached

    detail::Context m_ctx;
    std::vector<PlacementShard> m_shards;
    std::vector<PlacementShard> m_splitShards; // shards whose TP or CP group spans datacenters
    std::vector<StageReplicas> m_stages;
    int m_pp = 1;
};

bool Analyzer::prepare()
{
    const Parallelism& par = m_scenario.parallelism;
    m_pp = std::max(1, par.pp);
    if (m_scenario.topology.datacenters.empty()) {
        m_ctx.warnings.push_back(Warning{WarningCode::PlacementInvalid, WarningForm::NoDatacenter});
        return false;
    }
    m_shards = effectiveShards(m_scenario);
    m_stages.assign(static_cast<std::size_t>(m_pp), {});
    const Id firstDc = m_scenario.topology.datacenters.front().id;
    for (PlacementShard& shard : m_shards) {
        if (static_cast<int>(shard.stageDatacenters.size()) != m_pp) {
            m_ctx.warnings.push_back(
                Warning{WarningCode::PlacementInvalid, WarningForm::ShardStages}
                    .count("stage_datacenters",
                           static_cast<std::int64_t>(shard.stageDatacenters.size()))
                    .count("pp", m_pp));
            shard.stageDatacenters.resize(
                static_cast<std::size_t>(m_pp),
                shard.stageDatacenters.empty() ? firstDc : shard.stageDatacenters.back());
        }
        for (Id& dc : shard.stageDatacenters)
            if (!findDatacenter(m_scenario.topology, dc)) {
                m_ctx.warnings.push_back(
                    Warning{WarningCode::PlacementInvalid, WarningForm::UnknownDatacenter}.count(
                        "datacenter_id", dc));
                dc = firstDc;
            }
        if (shard.split()) {
            const bool tp = shard.splitDim == ParallelDim::Tp;
            const int degree = tp ? par.tp : par.cp;
            const auto k = static_cast<int>(shard.splitDatacenters.size());
            const bool known = std::all_of(
                shard.splitDatacenters.begin(), shard.splitDatacenters.end(),
                [&](Id dc) { return findDatacenter(m_scenario.topology, dc) != nullptr; });
            if (!known || (!tp && shard.splitDim != ParallelDim::Cp) || degree % k != 0) {
                m_ctx.warnings.push_back(
                    Warning{WarningCode::PlacementInvalid, WarningForm::InvalidSplit});
                shard.splitDatacenters.clear();
            }
        }
        if (shard.dpReplicas <= 0)
            continue;
        for (int i = 0; i < m_pp; ++i) {
            StageReplicas& st = m_stages[static_cast<std::size_t>(i)];
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
    if (dataParallel(m_scenario) <= 0 || m_stages.front().dcs.empty()) {
        m_ctx.warnings.push_back(Warning{WarningCode::PlacementInvalid, WarningForm::NoReplica});
        return false;
    }
    // Per-datacenter layout sizes: the most replicas of any stage and the most stages of any
    // shard placed there.
    for (const StageReplicas& st : m_stages)
        for (std::size_t k = 0; k < st.dcs.size(); ++k) {
            DcLayout& layout = detail::layoutFor(m_ctx, st.dcs[k]);
            layout.dpLocal = std::max(layout.dpLocal, st.counts[k]);
        }
    for (const PlacementShard& shard : m_shards)
        for (const Id dc : shard.stageDatacenters) {
            const auto n =
                std::count(shard.stageDatacenters.begin(), shard.stageDatacenters.end(), dc);
            DcLayout& layout = detail::layoutFor(m_ctx, dc);
            layout.ppLocal = std::max<std::int64_t>(layout.ppLocal, n);
        }
    // A split shard holds every one of its stages, dpReplicas times, in each split datacenter
    // (a slice of degree/k ranks of the split dimension each). Its pipeline boundaries join
    // slices in the same datacenter, so for boundaries it is placed wholly in its first split
    // datacenter; stageDatacenters only names the stage's home for drawing.
    for (PlacementShard& shard : m_shards) {
        if (!shard.split() || shard.dpReplicas <= 0)
            continue;
        for (const Id dc : shard.splitDatacenters) {
            DcLayout& layout = detail::layoutFor(m_ctx, dc);
            layout.dpLocal = std::max<std::int64_t>(layout.dpLocal, shard.dpReplicas);
            layout.ppLocal = std::max<std::int64_t>(layout.ppLocal, m_pp);
        }
        m_splitShards.push_back(shard);
        shard.stageDatacenters.assign(static_cast<std::size_t>(m_pp),
                                      shard.splitDatacenters.front());
    }
    return true;
}

void Analyzer::analyzeDenseGroups(PlacementAnalysis& out)
{
    const Parallelism& par = m_scenario.parallelism;
    bool first = true;
    for (auto& [id, layout] : m_ctx.layouts) {
        const auto dense = detail::denseSizes(par, layout);
        const auto expert = detail::expertSizes(par, layout);
        const auto& order = m_scenario.placement.rankOrder;
        GroupPath tp{detail::intraLevels(layout, detail::stride(order, ParallelDim::Tp, dense),
                                         par.tp, false)};
        GroupPath cp{detail::intraLevels(layout, detail::stride(order, ParallelDim::Cp, dense),
                                         par.cp, false)};
        // EP: ep consecutive ranks of the (cp x dp) space (Megatron-core expert rank
        // generator: cp folded into the expert data-parallel dimension).
        const std::int64_t expertSpace = layout.dpLocal * par.cp;
        const std::int64_t epLocal = std::gcd(std::int64_t{std::max(1, par.ep)}, expertSpace);
        // Node-limited routing dispatches over the fabric to the same local index of each
        // target node, then forwards over the scale-up domain (DeepSeek-V3 section 3.2.2).
        GroupPath ep{detail::intraLevels(layout, detail::stride(order, ParallelDim::Ep, expert),
                                         epLocal, true, m_scenario.workload.moe.nodeLimited())};
        if (epLocal < par.ep && m_stages.front().dcs.size() > 1) {
            ep.levels.push_back(detail::dciLevel(
                m_ctx, {m_stages.front().dcs[0], m_stages.front().dcs[1]},
                static_cast<double>(std::int64_t{par.tp} * par.cp * m_stages.front().smallest()),
                static_cast<int>(par.ep / epLocal), nullptr, NcclTraffic::PointToPoint,
                "EP all-to-all"));
            // Each stage's expert groups exchange between that stage's first two sites.
            if (out.epDci.empty())
                for (const StageReplicas& st : m_stages)
                    if (st.dcs.size() > 1)
                        detail::addRingSpread(m_ctx, {st.dcs[0], st.dcs[1]}, 1.0 / m_pp, out.epDci);
            if (m_ctx.wantWarnings)
                m_ctx.warnings.push_back(Warning{WarningCode::EpCrossesDc}
                                             .count("ep", par.ep)
                                             .count("expert_ranks", expertSpace)
                                             .count("datacenter_id", layout.dc->id)
                                             .name("datacenter", layout.dc->name));
        }
        out.tp = first ? tp : slower(out.tp, tp);
        out.cp = first ? cp : slower(out.cp, cp);
        out.ep = first ? ep : slower(out.ep, ep);
        first = false;
        if (m_ctx.wantWarnings && (par.tp > layout.fabric.gpusPerDomain || tp.levels.size() > 1))
            m_ctx.warnings.push_back(Warning{WarningCode::TpExceedsScaleUp}
                                         .count("tp", par.tp)
                                         .count("domain_gpus", layout.fabric.gpusPerDomain)
                                         .count("datacenter_id", layout.dc->id)
                                         .name("datacenter", layout.dc->name)
                                         .name("tier", toString(tp.levels.back().linkClass))
                                         .num("tier_gbps", tp.levels.back().bandwidthGBps)
                                         .num("scale_up_gbps", layout.scaleUpGBps));
        detail::warnCrossRail(m_ctx, layout, ep, "EP all-to-all");
    }
}

void Analyzer::analyzeSplitGroups(PlacementAnalysis& out)
{
    // A split TP (CP) group has degree/k members inside each split datacenter (the levels an
    // unsplit group of that size would have) and an outermost DCI level of k participants. Every
    // GPU of the shard runs such a collective at once, so the GPUs the shard holds per datacenter
    // share the route (the DP-across-datacenters rule of gradientPath, per GPU here).
    const Parallelism& par = m_scenario.parallelism;
    for (const PlacementShard& shard : m_splitShards) {
        const bool tp = shard.splitDim == ParallelDim::Tp;
        const int degree = tp ? par.tp : par.cp;
        const auto k = static_cast<int>(shard.splitDatacenters.size());
        Parallelism local = par;
        (tp ? local.tp : local.cp) = degree / k;
        const double flows =
            static_cast<double>(std::int64_t{par.tp} * par.cp * shard.dpReplicas * m_pp / k);
        GroupPath worst;
        bool have = false;
        for (const Id dc : shard.splitDatacenters) {
            const DcLayout& layout = detail::layoutFor(m_ctx, dc);
            const auto sizes = detail::denseSizes(local, layout);
            const ParallelDim dim = tp ? ParallelDim::Tp : ParallelDim::Cp;
            GroupPath path{detail::intraLevels(
                layout, detail::stride(m_scenario.placement.rankOrder, dim, sizes), degree / k,
                false)};
            path.levels.push_back(detail::dciLevel(m_ctx, shard.splitDatacenters, flows, k, nullptr,
                                                   NcclTraffic::Collective,
                                                   tp ? "TP split" : "CP split"));
            worst = have ? slower(worst, path) : path;
            have = true;
        }
        GroupPath& target = tp ? out.tp : out.cp;
        target = slower(target, worst);
        // The shard's GPUs are dpReplicas / dp of the job's.
        detail::addRingSpread(
            m_ctx, shard.splitDatacenters,
            static_cast<double>(shard.dpReplicas) /
                static_cast<double>(std::max<std::int64_t>(1, dataParallel(m_scenario))),
            tp ? out.tpDci : out.cpDci);
        detail::warnSplit(m_ctx, shard.splitDim, degree, worst.levels.back());
    }
}

void Analyzer::accumulateGradientLoads(DciLoads& loads)
{
    // Gradient reduction runs for every stage at the end of the iteration: every DP group of
    // every stage whose replicas sit in several datacenters crosses DCI at the same time, one
    // ring per GPU of the smallest local share (hierarchical all-reduce).
    const Parallelism& par = m_scenario.parallelism;
    for (const StageReplicas& st : m_stages)
        if (st.dcs.size() > 1)
            detail::addRingLoads(m_ctx, st.dcs,
                                 static_cast<double>(std::int64_t{par.tp} * par.cp * st.smallest()),
                                 loads);
}

// What crosses the DCI for data parallelism: every step's all-reduce, or DiLoCo's outer one
// every H steps (model/scenario.h DatacenterSyncOptions).
const char* dpCollectiveName(const Parallelism& par, bool expert)
{
    if (par.datacenterSync.scheme != DatacenterSync::Synchronous)
        return expert ? "expert DiLoCo outer all-reduce" : "DiLoCo outer all-reduce";
    return expert ? "expert DP all-reduce" : "DP all-reduce";
}

GroupPath Analyzer::gradientPath(int stage, bool expert, const DciLoads& loads)
{
    const Parallelism& par = m_scenario.parallelism;
    const StageReplicas& st = m_stages[static_cast<std::size_t>(stage)];
    const DcLayout& layout = m_ctx.layouts.at(st.smallestDc());
    const auto& order = m_scenario.placement.rankOrder;
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
        path.levels.push_back(detail::dciLevel(m_ctx, st.dcs, 0.0, static_cast<int>(st.dcs.size()),
                                               &loads, NcclTraffic::Collective,
                                               dpCollectiveName(par, expert)));
    return path;
}

void Analyzer::analyzeBoundaries(PlacementAnalysis& out)
{
    const bool interleaved = m_scenario.schedule.kind == ScheduleKind::Interleaved1F1B;
    DciLoads loads;
    // Pass 1: every cross-datacenter boundary of every shard loads the directed links of its
    // route with the GPUs that send at once (tp * cp per replica).
    const double perReplica =
        static_cast<double>(std::int64_t{m_scenario.parallelism.tp} * m_scenario.parallelism.cp);
    for (const PlacementShard& shard : m_shards) {
        const auto& sd = shard.stageDatacenters;
        for (int i = 0; i + 1 < m_pp || (interleaved && i + 1 == m_pp && m_pp > 1); ++i) {
            const Id a = sd[static_cast<std::size_t>(i)];
            const Id b = sd[static_cast<std::size_t>((i + 1) % m_pp)];
            if (a != b)
                detail::addRouteLoads(m_ctx, a, b, perReplica * shard.dpReplicas, loads);
        }
    }
    // Pass 2: each boundary takes its slowest shard.
    out.stageBoundaries.assign(static_cast<std::size_t>(m_pp - 1), LevelLink{});
    for (int i = 0; i < m_pp; ++i) {
        const bool wrap = i + 1 == m_pp;
        if (wrap && m_pp == 1)
            break;
        LevelLink worst;
        bool have = false;
        for (const PlacementShard& shard : m_shards) {
            if (shard.dpReplicas <= 0)
                continue;
            LevelLink link = detail::boundaryLink(m_ctx, m_scenario, shard, i, wrap, loads);
            if (!have || detail::transferProxyS(link) > detail::transferProxyS(worst))
                worst = link;
            have = true;
        }
        if (wrap)
            out.wrapBoundary = worst;
        else
            out.stageBoundaries[static_cast<std::size_t>(i)] = worst;
        if (worst.linkClass == LinkClass::Dci && (!wrap || interleaved))
            detail::warnBoundary(m_ctx, i, wrap ? 0 : i + 1, worst);
    }
}

PlacementAnalysis Analyzer::run()
{
    PlacementAnalysis out;
    if (!prepare()) {
        out.warnings = std::move(m_ctx.warnings);
        return out;
    }
    analyzeDenseGroups(out);
    analyzeSplitGroups(out);

    DciLoads gradientLoads;
    accumulateGradientLoads(gradientLoads);
    for (int i = 0; i < m_pp; ++i) {
        const GroupPath dp = gradientPath(i, false, gradientLoads);
        const GroupPath edp = gradientPath(i, true, gradientLoads);
        out.dp = i == 0 ? dp : slower(out.dp, dp);
        out.expertDp = i == 0 ? edp : slower(out.expertDp, edp);
        // A stage's DP groups hold 1/pp of the GPUs; their rings run over its datacenters.
        const StageReplicas& st = m_stages[static_cast<std::size_t>(i)];
        if (st.dcs.size() > 1)
            detail::addRingSpread(m_ctx, st.dcs, 1.0 / m_pp, out.dpDci);
    }
    detail::warnShared(m_ctx, out.dp, dpCollectiveName(m_scenario.parallelism, false));
    analyzeBoundaries(out);
    detail::warnTransport(m_ctx);
    out.warnings = std::move(m_ctx.warnings);
    return out;
}

} // namespace

PlacementAnalysis analyzePlacement(const Scenario& scenario, const Catalog& catalog,
                                   const TopologyModel* model, bool warnings)
{
    return Analyzer(scenario, catalog, model, warnings).run();
}

} // namespace archipelago::core
