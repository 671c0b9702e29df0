#include "common/crossingchoices.h"

#include "model/placementpresets.h"

#include <QObject>
#include <QStringList>

#include <algorithm>
#include <optional>
#include <utility>

namespace archipelago::views {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QString chain(const core::Scenario& scenario, const std::vector<QString>& crossings)
{
    const std::vector<core::Datacenter>& dcs = scenario.topology.datacenters;
    QString text;
    for (std::size_t i = 0; i < dcs.size(); ++i) {
        if (i > 0)
            text += QStringLiteral(" ─%1─ ").arg(crossings[i - 1]);
        text += qs(dcs[i].name);
    }
    return text;
}

} // namespace

std::vector<CrossingChoice> crossingChoices(const core::Scenario& scenario)
{
    const std::size_t count = scenario.topology.datacenters.size();
    std::vector<CrossingChoice> choices;
    if (count < 2)
        return choices;
    std::vector<int> one(count, 0);
    std::vector<int> each(count);
    for (std::size_t i = 0; i < count; ++i)
        each[i] = static_cast<int>(i);
    choices.push_back({QObject::tr("PP crosses — stages split over datacenters"),
                       QObject::tr("One pipeline over every datacenter, stages split in "
                                   "proportion to their GPUs; activations cross each DCI."),
                       one});
    choices.push_back({QObject::tr("DP crosses — one pipeline per datacenter"),
                       QObject::tr("Every datacenter runs whole pipelines; gradients cross each "
                                   "DCI."),
                       each});
    const auto listed = [&](const std::vector<int>& groups) {
        for (const CrossingChoice& c : choices)
            if (core::renumberedGroups(c.groups) == core::renumberedGroups(groups))
                return true;
        return false;
    };
    const std::vector<int> byRegion = core::groupsByRegion(scenario);
    if (!listed(byRegion))
        choices.push_back({QObject::tr("PP inside each region, DP between regions"),
                           QObject::tr("Each region runs its own pipelines, stages split over "
                                       "its datacenters; only gradients cross between regions."),
                           byRegion});
    if (count > kMaxDatacentersForChains)
        return choices;
    const std::size_t boundaries = count - 1;
    for (std::size_t mask = 0; mask < (std::size_t{1} << boundaries); ++mask) {
        std::vector<core::ParallelDim> dims;
        std::vector<QString> words;
        for (std::size_t b = 0; b < boundaries; ++b) {
            const bool pp = ((mask >> b) & 1U) == 0;
            dims.push_back(pp ? core::ParallelDim::Pp : core::ParallelDim::Dp);
            words.push_back(pp ? QStringLiteral("PP") : QStringLiteral("DP"));
        }
        const std::vector<int> groups = core::groupsFromBoundaries(scenario, dims);
        if (!listed(groups))
            choices.push_back({chain(scenario, words),
                               QObject::tr("PP crosses the boundaries marked PP (one pipeline "
                                           "over those datacenters), DP those marked DP."),
                               groups});
    }
    return choices;
}

int currentCrossingChoice(const core::Scenario& scenario,
                          const std::vector<CrossingChoice>& choices)
{
    const std::vector<core::Datacenter>& dcs = scenario.topology.datacenters;
    const std::vector<int> groups = core::pipelineGroups(scenario);
    if (groups.empty())
        return -1; // a split shard
    // Datacenters with no stage are left out of the comparison (too small for a replica).
    const auto restricted = [&groups](const std::vector<int>& g) {
        std::vector<int> out;
        for (std::size_t i = 0; i < groups.size() && i < g.size(); ++i)
            if (groups[i] >= 0)
                out.push_back(g[i]);
        return core::renumberedGroups(std::move(out));
    };
    const std::vector<int> placed = restricted(groups);
    if (placed.empty())
        return -1;
    for (std::size_t c = 0; c < choices.size(); ++c)
        if (choices[c].groups.size() == dcs.size() && restricted(choices[c].groups) == placed)
            return static_cast<int>(c);
    return -1;
}

QString crossingChain(const core::Scenario& scenario)
{
    std::vector<QString> words;
    for (const std::optional<core::ParallelDim>& dim : core::boundaryDims(scenario))
        words.push_back(!dim                            ? QStringLiteral("?")
                        : *dim == core::ParallelDim::Pp ? QStringLiteral("PP")
                                                        : QStringLiteral("DP"));
    return scenario.topology.datacenters.size() < 2 ? QString() : chain(scenario, words);
}

} // namespace archipelago::views
