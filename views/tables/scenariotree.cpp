#include "tables/scenariotree.h"

#include "common/format.h"
#include "common/scenariotext.h"

#include <QHeaderView>
#include <QSignalBlocker>
#include <QTreeWidgetItemIterator>

namespace archipelago::views {

namespace {

using Kind = ScenarioItem::Kind;

constexpr int kKindRole = Qt::UserRole;
constexpr int kIdRole = Qt::UserRole + 1;
constexpr int kParentIdRole = Qt::UserRole + 2;

QString fromStd(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

ScenarioTree::ScenarioTree(QWidget* parent)
    : QTreeWidget(parent)
{
    setColumnCount(2);
    setHeaderLabels({tr("Item"), tr("Summary")});
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    setSelectionMode(QAbstractItemView::SingleSelection);
    header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    header()->setStretchLastSection(true);
    connect(this, &QTreeWidget::currentItemChanged, this,
            [this](QTreeWidgetItem* current) { emit selectedItemChanged(itemRef(current)); });
}

ScenarioItem ScenarioTree::itemRef(const QTreeWidgetItem* treeItem)
{
    if (!treeItem)
        return {};
    ScenarioItem ref;
    ref.kind = static_cast<Kind>(treeItem->data(0, kKindRole).toInt());
    ref.id = treeItem->data(0, kIdRole).toInt();
    ref.parentId = treeItem->data(0, kParentIdRole).toInt();
    return ref;
}

ScenarioItem ScenarioTree::selectedItem() const
{
    return itemRef(currentItem());
}

void ScenarioTree::selectItem(const ScenarioItem& item)
{
    if (QTreeWidgetItem* found = findItem(item))
        setCurrentItem(found);
}

void ScenarioTree::setScenario(const core::Scenario& scenario)
{
    const ScenarioItem selected = selectedItem();
    const QList<ScenarioItem> collapsed = collapsedItems();
    {
        // One selectedItemChanged after the rebuild, not one per removed item.
        const QSignalBlocker blocker(this);
        clear();
        // The name goes in the wide column: it is often a sentence.
        QTreeWidgetItem* root =
            addItem(nullptr, {Kind::Scenario}, tr("Scenario"),
                    tr("%1 — %2 GPUs")
                        .arg(scenario.name.empty() ? tr("unnamed") : fromStd(scenario.name),
                             formatCount(core::totalGpus(scenario.topology))));
        addTopology(root, scenario);
        addItem(root, {Kind::Workload}, tr("Workload"), workloadSummary(scenario.workload));
        addParallelism(root, scenario);
        addPlacement(root, scenario);
        addItem(root, {Kind::Schedule}, tr("Schedule"), scheduleName(scenario.schedule.kind));
        expandAll();
        for (const ScenarioItem& ref : collapsed)
            if (QTreeWidgetItem* item = findItem(ref))
                item->setExpanded(false);
        QTreeWidgetItem* current = findItem(selected);
        setCurrentItem(current ? current : root);
    }
    m_populated = true;
    emit selectedItemChanged(selectedItem());
}

QTreeWidgetItem* ScenarioTree::addItem(QTreeWidgetItem* parent, const ScenarioItem& ref,
                                       const QString& name, const QString& summary)
{
    auto* item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(this);
    item->setText(0, name);
    item->setText(1, summary);
    item->setToolTip(1, summary);
    item->setData(0, kKindRole, static_cast<int>(ref.kind));
    item->setData(0, kIdRole, ref.id);
    item->setData(0, kParentIdRole, ref.parentId);
    return item;
}

void ScenarioTree::addTopology(QTreeWidgetItem* root, const core::Scenario& scenario)
{
    const core::Topology& topology = scenario.topology;
    QTreeWidgetItem* topo = addItem(root, {Kind::Topology}, tr("Topology"),
                                    countOf(static_cast<std::int64_t>(topology.datacenters.size()),
                                            tr("datacenter"), tr("datacenters")) +
                                        QStringLiteral(", ") +
                                        countOf(static_cast<std::int64_t>(topology.links.size()),
                                                tr("DCI link"), tr("DCI links")));
    for (const core::Region& region : topology.regions) {
        std::int64_t gpus = 0;
        for (const core::Datacenter& dc : topology.datacenters)
            if (dc.regionId == region.id)
                gpus += core::gpusInDatacenter(dc);
        QTreeWidgetItem* regionItem = addItem(topo, {Kind::Region, region.id}, fromStd(region.name),
                                              tr("%1 GPUs").arg(formatCount(gpus)));
        for (const core::Datacenter& dc : topology.datacenters)
            if (dc.regionId == region.id)
                addDatacenter(regionItem, dc);
    }
    // Datacenters whose region is not listed still appear, directly under the topology.
    for (const core::Datacenter& dc : topology.datacenters)
        if (!core::findRegion(topology, dc.regionId))
            addDatacenter(topo, dc);
    QTreeWidgetItem* links = addItem(topo, {Kind::Links}, tr("DCI links"),
                                     topology.links.empty() ? tr("none") : QString());
    for (const core::DciLink& link : topology.links)
        addItem(links, {Kind::Link, link.id}, linkTitle(scenario, link), linkSummary(link));
}

void ScenarioTree::addDatacenter(QTreeWidgetItem* parent, const core::Datacenter& dc)
{
    QTreeWidgetItem* dcItem =
        addItem(parent, {Kind::Datacenter, dc.id}, fromStd(dc.name), datacenterSummary(dc));
    for (const core::Pod& pod : dc.pods)
        addItem(dcItem, {Kind::Pod, pod.id, dc.id},
                pod.name.empty() ? tr("pod") : fromStd(pod.name), podSummary(pod));
}

void ScenarioTree::addParallelism(QTreeWidgetItem* root, const core::Scenario& scenario)
{
    const core::Parallelism& p = scenario.parallelism;
    QTreeWidgetItem* item =
        addItem(root, {Kind::Parallelism}, tr("Parallelism"), parallelismSummary(scenario));
    const ScenarioItem ref{Kind::Parallelism};
    addItem(item, ref, tr("Micro-batch"),
            tr("%1 per micro-batch, %2 per iteration")
                .arg(countOf(p.microBatch, tr("sequence"), tr("sequences")),
                     countOf(core::microBatchesPerIteration(scenario), tr("micro-batch"),
                             tr("micro-batches"))));
    addItem(item, ref, tr("Schedule"),
            p.virtualStages > 1 ? tr("%1, %2 virtual stages")
                                      .arg(scheduleName(scenario.schedule.kind))
                                      .arg(p.virtualStages)
                                : scheduleName(scenario.schedule.kind));
    addItem(item, ref, tr("Memory"),
            tr("ZeRO %1%2%3, recompute %4%5")
                .arg(p.zeroStage)
                .arg(p.distributedOptimizer ? (p.distributedOptimizerInstances > 1
                                                   ? tr(" + distributed optimizer (%1 instances)")
                                                         .arg(p.distributedOptimizerInstances)
                                                   : tr(" + distributed optimizer"))
                                            : QString())
                .arg(p.gradReduceDtype == core::GradReduceDtype::Bf16 ? tr(", bf16 gradients")
                                                                      : QString())
                .arg(recomputeName(p.recompute).toLower())
                .arg(p.sequenceParallel ? tr(", sequence parallel") : QString()));
}

void ScenarioTree::addPlacement(QTreeWidgetItem* root, const core::Scenario& scenario)
{
    const std::vector<core::PlacementShard> shards = core::effectiveShards(scenario);
    QTreeWidgetItem* item =
        addItem(root, {Kind::Placement}, tr("Placement"),
                scenario.placement.shards.empty()
                    ? tr("implicit: whole job in the first datacenter")
                    : countOf(static_cast<std::int64_t>(shards.size()), tr("shard"), tr("shards")));
    for (std::size_t i = 0; i < shards.size(); ++i)
        addItem(item, {Kind::Shard, static_cast<core::Id>(i)}, tr("Shard %1").arg(i),
                shardSummary(scenario, shards[i]));
}

QTreeWidgetItem* ScenarioTree::findItem(const ScenarioItem& ref) const
{
    if (ref.kind == Kind::None)
        return nullptr;
    for (QTreeWidgetItemIterator it(const_cast<ScenarioTree*>(this)); *it; ++it)
        if (itemRef(*it) == ref)
            return *it;
    return nullptr;
}

QList<ScenarioItem> ScenarioTree::collapsedItems() const
{
    QList<ScenarioItem> result;
    if (!m_populated)
        return result;
    for (QTreeWidgetItemIterator it(const_cast<ScenarioTree*>(this)); *it; ++it)
        if ((*it)->childCount() > 0 && !(*it)->isExpanded())
            result << itemRef(*it);
    return result;
}

} // namespace archipelago::views
