// Read-only name / value / unit rows for the selected scenario item. Becomes the editing
// panel later (issue 5): edits will leave as intent signals, never as writes to the scenario.
#pragma once

#include "scenarioitem.h"

#include <QWidget>

class QLabel;
class QTreeWidget;

namespace archipelago::views {

class PropertyPanel : public QWidget
{
    Q_OBJECT

public:
    explicit PropertyPanel(QWidget* parent = nullptr);

    void showItem(const core::Scenario& scenario, const ScenarioItem& item);
    ScenarioItem item() const { return m_item; }

    // For tests and tools: the value shown for a property name, or a null string.
    QString valueOf(const QString& name) const;

private:
    QLabel* m_title = nullptr;
    QLabel* m_description = nullptr;
    QTreeWidget* m_rows = nullptr;
    ScenarioItem m_item;
};

} // namespace archipelago::views
