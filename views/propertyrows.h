// The name / value / unit rows that describe one scenario item, grouped under headings.
// Pure presentation of core data: derived quantities come from core's free functions.
#pragma once

#include "scenarioitem.h"

#include <QString>

#include <vector>

namespace archipelago::views {

struct PropertyRow
{
    QString name;
    QString value;
    QString unit;
    bool heading = false; // a group title; the rows after it belong to it
};

QString itemTitle(const core::Scenario& scenario, const ScenarioItem& item);
// Free text shown above the rows (the scenario's description), or an empty string.
QString itemDescription(const core::Scenario& scenario, const ScenarioItem& item);
std::vector<PropertyRow> propertyRows(const core::Scenario& scenario, const ScenarioItem& item);

} // namespace archipelago::views
