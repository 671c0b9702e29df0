#include "io/migration.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace archipelago::core {

namespace {

// Renames `from` to `to` in an object, unless `to` is already there (then `from` is left in
// place and reported as an unknown key, rather than silently dropping either value).
void renameKey(Json& object, std::string_view from, std::string_view to)
{
    if (!object.is_object())
        return;
    const auto it = object.find(std::string(from));
    if (it == object.end() || object.contains(std::string(to)))
        return;
    Json value = std::move(it.value());
    object.erase(it);
    object[std::string(to)] = std::move(value);
}

// Version 0 is the pre-release draft layout: the DCI links were "links", a link's rate per
// wavelength was "rate_gbps", and the parallelism's virtual pipeline stages were "vpp".
// Everything else is as in version 1.
void migrateV0ToV1(Json& doc)
{
    if (!doc.is_object())
        return;
    if (const auto topology = doc.find("topology"); topology != doc.end()) {
        renameKey(*topology, "links", "dci_links");
        if (topology->is_object())
            if (const auto links = topology->find("dci_links");
                links != topology->end() && links->is_array())
                for (Json& link : *links)
                    renameKey(link, "rate_gbps", "Gbps_per_wavelength");
    }
    if (const auto parallelism = doc.find("parallelism"); parallelism != doc.end())
        renameKey(*parallelism, "vpp", "virtual_stages");
}

// Version 1 described a DCI link's RDMA window with two keys: "outstanding_bytes" per connection
// (NCCL_BUFFSIZE, so it becomes "nccl": {"buffsize_bytes"}) and "connections_per_collective", a
// floor on the connections a link carries whatever its GPU flows (connections = max(flows,
// floor)). Version 2 counts them as NCCL opens them: a connection per channel per GPU flow
// ("nccl": {"channels", ...}, NCCL's defaults). The floor has no counterpart in NCCL and is
// dropped: it raised a link's window only when fewer GPU flows than it crossed the link.
void migrateV1ToV2(Json& doc)
{
    if (!doc.is_object())
        return;
    const auto topology = doc.find("topology");
    if (topology == doc.end() || !topology->is_object())
        return;
    const auto links = topology->find("dci_links");
    if (links == topology->end() || !links->is_array())
        return;
    for (Json& link : *links) {
        if (!link.is_object())
            continue;
        link.erase("connections_per_collective");
        const auto outstanding = link.find("outstanding_bytes");
        if (outstanding == link.end())
            continue;
        if (!link.contains("nccl"))
            link["nccl"] = Json::object();
        Json& nccl = link["nccl"];
        if (nccl.is_object() && !nccl.contains("buffsize_bytes")) {
            nccl["buffsize_bytes"] = std::move(outstanding.value());
            link.erase(outstanding);
        }
    }
}

constexpr std::array kScenarioSteps{
    MigrationStep{0, "migrate_v0_to_v1", migrateV0ToV1},
    MigrationStep{1, "migrate_v1_to_v2", migrateV1ToV2},
};

} // namespace

std::span<const MigrationStep> scenarioMigrations()
{
    return kScenarioSteps;
}

int oldestScenarioVersion()
{
    return kScenarioSteps.front().fromVersion;
}

std::optional<std::string> migrate(Json& doc, int fromVersion, int toVersion,
                                   std::span<const MigrationStep> steps)
{
    for (int version = fromVersion; version < toVersion; ++version) {
        const auto step = std::find_if(steps.begin(), steps.end(), [&](const MigrationStep& s) {
            return s.fromVersion == version;
        });
        if (step == steps.end())
            return "no migration from version " + std::to_string(version) + " to " +
                   std::to_string(version + 1);
        step->apply(doc);
        if (doc.is_object())
            doc["version"] = version + 1;
    }
    return std::nullopt;
}

} // namespace archipelago::core
