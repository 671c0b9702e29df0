// The two phases of checkScenario (scenarioio.h), internal to the scenario I/O.
// Phase 1 checks each value on its own (ranges, unique ids, references, catalog names, GPU
// total); phase 2 checks how values fit together (degrees, divisibility, placement,
// connectivity) and runs only when phase 1 is clean, because it divides by the degrees and
// indexes by the ids that phase 1 vouches for. The shape rules themselves, shared with
// evaluate(), are the model's (model/shapecheck.h).
#pragma once

#include "io/diagnosticsink.h"
#include "model/catalog.h"
#include "model/scenario.h"
#include "model/scenariolimits.h"
#include "model/shapecheck.h"

#include <string>

namespace archipelago::core {

void checkScenarioFields(const Scenario& scenario, const Catalog& catalog, DiagnosticSink& sink,
                         TopologyRules topology = TopologyRules::Run);
void checkScenarioConsistency(const Scenario& scenario, DiagnosticSink& sink,
                              TopologyRules topology = TopologyRules::Run);

inline void checkInt(DiagnosticSink& sink, const std::string& pointer, long long value,
                     const limits::IntLimit& limit)
{
    if (!limit.contains(value))
        sink.error(pointer, expectedGot(limit.expected, std::to_string(value)));
}

void checkNumber(DiagnosticSink& sink, const std::string& pointer, double value,
                 const limits::NumberLimit& limit);

// Adds the findings of the model's shape rules (model/shapecheck.h) to the file's diagnostics.
// The findings a check feeding `sink` keeps: its warnings only when the sink keeps them.
inline ShapeFindings::Keep findingsFor(const DiagnosticSink& sink)
{
    return sink.keepsWarnings() ? ShapeFindings::Keep::All : ShapeFindings::Keep::ErrorsOnly;
}

inline void addFindings(DiagnosticSink& sink, const ShapeFindings& findings)
{
    for (const ShapeFinding& f : findings.all())
        sink.add(f.diagnostic);
}

} // namespace archipelago::core
