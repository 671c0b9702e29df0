// The top-level "pins" array of a scenario file (docs/scenario-format.md, "Pinned design
// points"): named, coloured snapshots of whole scenarios that the GUI compares with the current
// one. A pin's scenario is read with the same readers as the document's own, under the pointer
// /pins/N/scenario, so that its errors and unknown keys name where they are.
#include "io/scenariocheck.h"
#include "io/scenariojson.h"

#include <cctype>

namespace archipelago::core {

namespace keys = scenariokeys;

namespace {

bool isHexColor(const std::string& text)
{
    if (text.size() != 7 || text[0] != '#')
        return false;
    for (std::size_t i = 1; i < text.size(); ++i)
        if (!std::isxdigit(static_cast<unsigned char>(text[i])))
            return false;
    return true;
}

} // namespace

void readPins(ObjectReader& root, std::vector<PinnedScenario>& out)
{
    if (const Json* pins = root.find(keys::kPins, Need::Optional, "an array");
        pins && pins->is_array() && pins->size() > kMaxPins) {
        root.error(keys::kPins, "expected at most " + std::to_string(kMaxPins) + " pins, got " +
                                    std::to_string(pins->size()));
        return;
    }
    root.objects(keys::kPins, Need::Optional, [&](ObjectReader& r) {
        PinnedScenario& pin = out.emplace_back();
        r.string(keys::kName, pin.name, Need::Required, kMaxNameBytes);
        if (r.string(keys::kColor, pin.color) && !pin.color.empty() && !isHexColor(pin.color))
            r.error(keys::kColor, "expected a colour \"#rrggbb\", got \"" + pin.color + "\"");
        r.object(keys::kScenario, Need::Required,
                 [&](ObjectReader& s) { readScenario(s, pin.scenario); });
    });
}

void checkPins(const std::vector<PinnedScenario>& pins, DiagnosticSink& sink)
{
    for (std::size_t i = 0; i < pins.size(); ++i) {
        const Scenario& s = pins[i].scenario;
        const std::string prefix = "/pins/" + std::to_string(i) + "/scenario";
        const Catalog catalog = effectiveCatalog(s);
        for (Diagnostic& d : checkScenario(s, catalog, sink.file())) {
            d.pointer = prefix + d.pointer;
            sink.add(std::move(d));
        }
    }
}

Json pinsToJson(const std::vector<PinnedScenario>& pins)
{
    Json array = Json::array();
    for (const PinnedScenario& pin : pins) {
        Json scenario = scenarioToJson(pin.scenario);
        scenario.erase(keys::kFormat);
        scenario.erase(keys::kVersion);
        array.push_back(
            Json{{keys::kName, pin.name}, {keys::kColor, pin.color}, {keys::kScenario, scenario}});
    }
    return array;
}

std::string serializeScenario(const Scenario& scenario, const std::vector<PinnedScenario>& pins,
                              const std::string& explore)
{
    Json j = scenarioToJson(scenario);
    if (!pins.empty())
        j[keys::kPins] = pinsToJson(pins);
    writeExploreSection(j, explore);
    return j.dump(2, ' ', false, Json::error_handler_t::replace) + '\n';
}

} // namespace archipelago::core
