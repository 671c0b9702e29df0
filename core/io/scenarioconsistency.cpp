// Phase 2 of the semantic checks: how the values fit together. The rules live in the model
// (model/shapecheck.h), where evaluate() runs them too; this adds what they find to the
// file's diagnostics.
#include "io/scenariocheck.h"
#include "model/shapecheck.h"

namespace archipelago::core {

void checkScenarioConsistency(const Scenario& scenario, DiagnosticSink& sink,
                              TopologyRules topology)
{
    ShapeFindings findings(findingsFor(sink));
    checkShapeConsistency(scenario, ShapeRules::Scenario, findings, topology);
    addFindings(sink, findings);
}

} // namespace archipelago::core
