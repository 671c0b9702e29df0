#include "topology/topologycanvas.h"

#include "topology/topologycanvasview.h"
#include "topology/topologyscene.h"

#include <QAction>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

namespace archipelago::views {

TopologyCanvas::TopologyCanvas(QWidget* parent)
    : QWidget(parent)
    , m_scene(new TopologyScene(this))
    , m_view(new TopologyCanvasView(m_scene, this))
{
    qRegisterMetaType<TopologySelection>();
    qRegisterMetaType<TopologyItemKind>();
    createToolBar();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_toolBar);
    layout->addWidget(m_view, 1);
    setFocusProxy(m_view);

    connect(m_scene, &QGraphicsScene::selectionChanged, this,
            &TopologyCanvas::onSceneSelectionChanged);
    connect(m_view, &TopologyCanvasView::moveDatacentersRequested, this,
            &TopologyCanvas::moveDatacentersRequested);
    connect(m_view, &TopologyCanvasView::moveFinished, this, &TopologyCanvas::moveFinished);
    connect(m_view, &TopologyCanvasView::connectRequested, this, &TopologyCanvas::connectRequested);
    connect(m_view, &TopologyCanvasView::editRequested, this, &TopologyCanvas::editRequested);
    connect(m_view, &TopologyCanvasView::removeSelectedRequested, this,
            &TopologyCanvas::requestRemoveSelected);
    connect(m_view, &TopologyCanvasView::connectModeChanged, m_connect, &QAction::setChecked);
    updateActions();
}

TopologyCanvas::~TopologyCanvas()
{
    // The scene goes before the view's viewport: stop reporting selection changes.
    disconnect(m_scene, nullptr, this, nullptr);
}

void TopologyCanvas::createToolBar()
{
    m_toolBar = new QToolBar(tr("Topology"), this);
    m_toolBar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_toolBar->setIconSize(QSize(16, 16));

    QAction* add =
        m_toolBar->addAction(tr("+ Datacenter"), this, &TopologyCanvas::requestAddDatacenter);
    add->setToolTip(tr("Add a datacenter to the right of the others, in the region of the "
                       "selected one: a copy of it"));
    m_toolBar->addAction(tr("+ Region"), this, &TopologyCanvas::requestAddRegion)
        ->setToolTip(tr("Add a region to the right of the others, holding a copy of the selected "
                        "datacenter linked to its nearest one (rename the region, move "
                        "datacenters into it and set the link's distance in Properties)"));
    m_addPod = m_toolBar->addAction(tr("+ Pod"), this, &TopologyCanvas::requestAddPod);
    m_addPod->setToolTip(tr("Add a pod to the selected datacenter"));
    m_connect = m_toolBar->addAction(tr("Connect"));
    m_connect->setCheckable(true);
    m_connect->setToolTip(tr("Connect mode: drag from one datacenter to another to add a DCI "
                             "link (also Shift-drag or right-drag; Esc leaves)"));
    connect(m_connect, &QAction::toggled, this, &TopologyCanvas::setConnectMode);
    m_remove = m_toolBar->addAction(tr("Delete"), this, &TopologyCanvas::requestRemoveSelected);
    m_remove->setToolTip(tr("Delete the selected datacenters, pods and links (Del)"));
    m_toolBar->addSeparator();
    m_toolBar->addAction(tr("Fit"), this, &TopologyCanvas::fitToView)
        ->setToolTip(tr("Fit the topology to the view"));
    m_toolBar->addAction(tr("−"), this, &TopologyCanvas::zoomOut)
        ->setToolTip(tr("Zoom out (Ctrl+wheel, Ctrl+-)"));
    m_toolBar->addAction(tr("+"), this, &TopologyCanvas::zoomIn)
        ->setToolTip(tr("Zoom in (Ctrl+wheel, Ctrl++)"));
}

void TopologyCanvas::setTopology(const core::Topology& topology, const core::Scenario* scenario)
{
    QList<core::Id> datacenters;
    for (const core::Datacenter& dc : topology.datacenters)
        datacenters << dc.id;
    m_scene->setTopology(topology, scenario);
    updateActions();
    // Refit when datacenters come or go (first topology, add, remove, undo of either), not on
    // the small edits in between, which keep the user's zoom and scroll.
    if (datacenters != m_shownDatacenters && !datacenters.isEmpty())
        fitWhenReady();
    m_shownDatacenters = datacenters;
}

void TopologyCanvas::fitWhenReady()
{
    // Fit once the view has its final size: after the pending layout pass, or when shown.
    m_fitWhenShown = !isVisible();
    if (isVisible() && !m_fitQueued) {
        m_fitQueued = true;
        QTimer::singleShot(0, this, [this] {
            m_fitQueued = false;
            fitToView();
        });
    }
}

void TopologyCanvas::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_fitWhenShown) {
        m_fitWhenShown = false;
        fitWhenReady();
    }
}

const core::Topology& TopologyCanvas::topology() const
{
    return m_scene->topology();
}

TopologySelection TopologyCanvas::selection() const
{
    return m_scene->topologySelection();
}

void TopologyCanvas::setSelection(const TopologySelection& selection)
{
    m_settingSelection = true;
    m_scene->setTopologySelection(selection);
    m_settingSelection = false;
    m_lastSelection = m_scene->topologySelection();
    updateActions();
}

void TopologyCanvas::onSceneSelectionChanged()
{
    updateActions();
    if (m_settingSelection)
        return;
    const TopologySelection current = m_scene->topologySelection();
    if (current == m_lastSelection)
        return;
    m_lastSelection = current;
    emit selectionChanged(current);
}

void TopologyCanvas::updateActions()
{
    const TopologySelection current = m_scene->topologySelection();
    m_addPod->setEnabled(targetDatacenterForPod() >= 0);
    m_remove->setEnabled(!current.isEmpty());
}

core::Id TopologyCanvas::targetDatacenterForPod() const
{
    // The one selected datacenter, or the datacenter of the one selected pod.
    const TopologySelection current = m_scene->topologySelection();
    if (current.datacenters.size() == 1)
        return current.datacenters.front();
    if (current.datacenters.isEmpty() && current.pods.size() == 1)
        return m_scene->datacenterOfPod(current.pods.front());
    return -1;
}

bool TopologyCanvas::isConnectMode() const
{
    return m_view->isConnectMode();
}
double TopologyCanvas::zoom() const
{
    return m_view->zoom();
}
QGraphicsView* TopologyCanvas::view() const
{
    return m_view;
}
QGraphicsScene* TopologyCanvas::scene() const
{
    return m_scene;
}

QGraphicsItem* TopologyCanvas::itemFor(TopologyItemKind kind, core::Id id) const
{
    return m_scene->item(kind, id);
}

int TopologyCanvas::itemCount() const
{
    return m_scene->topologyItemCount();
}

void TopologyCanvas::fitToView()
{
    m_view->fitToView();
}
void TopologyCanvas::zoomIn()
{
    m_view->zoomBy(1.25);
}
void TopologyCanvas::zoomOut()
{
    m_view->zoomBy(1 / 1.25);
}

void TopologyCanvas::setConnectMode(bool on)
{
    m_view->setConnectMode(on);
    m_connect->setChecked(on);
}

void TopologyCanvas::requestAddDatacenter()
{
    emit addDatacenterRequested(m_scene->suggestedDatacenterPosition());
}

void TopologyCanvas::requestAddRegion()
{
    // Beyond the gap between datacenters, room for the two regions' margins.
    emit addRegionRequested(m_scene->suggestedDatacenterPosition() + QPointF(120.0, 0.0));
}

void TopologyCanvas::requestAddPod()
{
    const core::Id dc = targetDatacenterForPod();
    if (dc >= 0)
        emit addPodRequested(dc);
}

void TopologyCanvas::requestRemoveSelected()
{
    // Pods and links that go with a removed datacenter are not listed again.
    const TopologySelection current = m_scene->topologySelection();
    if (current.isEmpty())
        return;
    QList<core::Id> links;
    for (core::Id id : current.links) {
        const core::DciLink* link = m_scene->link(id);
        if (link && !current.datacenters.contains(link->a) &&
            !current.datacenters.contains(link->b))
            links << id;
    }
    QList<core::Id> pods;
    for (core::Id id : current.pods)
        if (!current.datacenters.contains(m_scene->datacenterOfPod(id)))
            pods << id;
    emit removeRequested(current.datacenters, links, pods);
}

} // namespace archipelago::views
