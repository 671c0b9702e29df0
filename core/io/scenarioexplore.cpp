// The top-level "explore" section of a scenario file (docs/explore.md, "The explore section of
// a scenario file"): the last design-space sweep saved with the document. io keeps it as compact
// JSON text beside the scenario (LoadResult::explore) and checks only that it is an object; its
// contents (a space and points of it) are read once, by explore/sweeprecord.h, which names the
// pointers under /explore.
#include "io/scenariojson.h"

namespace archipelago::core {

namespace keys = scenariokeys;

void readExploreSection(ObjectReader& root, std::string& out)
{
    const Json* v = root.find(keys::kExplore, Need::Optional, "an object");
    if (!v)
        return;
    if (!v->is_object()) {
        root.error(keys::kExplore, "expected an object, got " + describeJson(*v));
        return;
    }
    out = v->dump(-1, ' ', false, Json::error_handler_t::replace);
}

void writeExploreSection(Json& root, const std::string& explore)
{
    if (explore.empty())
        return;
    Json section = Json::parse(explore, nullptr, false);
    if (section.is_object())
        root[keys::kExplore] = std::move(section);
}

} // namespace archipelago::core
