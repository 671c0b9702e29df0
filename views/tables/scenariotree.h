// The scenario as a tree: topology (regions → datacenters → pods, DCI links), workload,
// parallelism, placement (shards) and schedule. Rebuilt from the scenario on every change;
// the selection and the expanded branches survive the rebuild because items are keyed by
// ScenarioItem (kind + stable id), never by pointer.
#pragma once

#include "common/scenarioitem.h"

#include <QSet>
#include <QTreeWidget>

namespace archipelago::views {

class ScenarioTree : public QTreeWidget
{
    Q_OBJECT

public:
    explicit ScenarioTree(QWidget* parent = nullptr);

    void setScenario(const core::Scenario& scenario);

    ScenarioItem selectedItem() const;
    void selectItem(const ScenarioItem& item);

    static ScenarioItem itemRef(const QTreeWidgetItem* treeItem);

signals:
    void selectedItemChanged(const archipelago::views::ScenarioItem& item);

private:
    QTreeWidgetItem* addItem(QTreeWidgetItem* parent, const ScenarioItem& ref, const QString& name,
                             const QString& summary);
    void addTopology(QTreeWidgetItem* root, const core::Scenario& scenario);
    void addDatacenter(QTreeWidgetItem* parent, const core::Datacenter& dc);
    void addParallelism(QTreeWidgetItem* root, const core::Scenario& scenario);
    void addPlacement(QTreeWidgetItem* root, const core::Scenario& scenario);
    QTreeWidgetItem* findItem(const ScenarioItem& ref) const;
    QList<ScenarioItem> collapsedItems() const;

    bool m_populated = false;
};

} // namespace archipelago::views
