// Network bill of materials: switches per tier, NICs, transceivers and cables
// by reach, DCI coherent optics, amplifiers and line-system terminals; capex and power per
// datacenter and per DCI link. Prices and watts come from the catalog passed in (the caller
// merges scenario.catalogOverrides); nothing here is a price constant.
#pragma once

#include "model/catalog.h"
#include "model/evaluation.h"
#include "model/scenario.h"
#include "network/fabric.h"

#include <string>
#include <vector>

namespace archipelago::core {

// The whole scenario: every datacenter's fabric (all installed GPUs, scope = datacenter name)
// and every DCI link (scope = "dci A<->B").
std::vector<BomItem> billOfMaterials(const Scenario& scenario, const Catalog& catalog);
// The same, collecting warnings (missing catalog names, DCI distance beyond optic reach).
std::vector<BomItem> billOfMaterials(const Scenario& scenario, const Catalog& catalog,
                                     std::vector<Warning>& warnings);

// One datacenter's fabric: NICs, switches per tier, host-leaf / leaf-spine / spine-core media.
std::vector<BomItem> fabricBillOfMaterials(const Datacenter& dc, const FabricDesign& fabric,
                                           const Catalog& catalog,
                                           std::vector<Warning>* warnings = nullptr);
// One DCI link: coherent optics (one per wavelength per end), line-system terminals (one per
// fibre pair per end) and in-line amplifiers (one per span boundary per fibre pair).
std::vector<BomItem> dciBillOfMaterials(const DciLink& link, const Topology& topology,
                                        const Catalog& catalog,
                                        std::vector<Warning>* warnings = nullptr);
// In-line amplifiers per fibre pair: spans of at most `spacingKm`, so ceil(d / s) - 1.
std::int64_t amplifiersPerFibrePair(double distanceKm, double spacingKm);

struct BomTotals
{
    std::string scope; // "" for the grand total
    double capexUsd = 0.0;
    double powerW = 0.0;
};
// Sum of all items, optionally leaving out some categories (e.g. {"nic"}: NICs are the same in
// every fabric design, so fabric comparisons leave them out).
BomTotals bomTotal(const std::vector<BomItem>& items,
                   const std::vector<std::string>& excludeCategories = {});
// Totals per scope, in order of first appearance.
std::vector<BomTotals> bomTotalsByScope(const std::vector<BomItem>& items);

} // namespace archipelago::core
