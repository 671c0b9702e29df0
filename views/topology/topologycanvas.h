// The topology canvas: a toolbar (add datacenter, add region, add pod, connect, delete, fit, zoom)
// over an interactive view of the topology (ARCHITECTURE.md section 5). It shows a core::Topology
// and emits intents; it never changes the topology itself. The app applies each intent as an undo
// command and calls setTopology() with the result.
//
// Wiring (app side):
//   setTopology(scenario.topology, &scenario)  on every document change (incremental by id;
//                                               refits when datacenters are added or removed)
//   fitWhenReady()                              after opening a document
//   setSelection(...)                           to mirror a selection made elsewhere
//   moveDatacentersRequested(ids, pos, dragId)  on every drag step: one MoveNodes command per
//                                               step, merged by dragId (QUndoCommand::mergeWith)
//   moveFinished(dragId)                        the drag ended: stop merging
//   connectRequested(a, b)                      AddLink between datacenters a and b
//   removeRequested(dcs, links, pods)           one macro removing them; links and pods of
//                                               removed datacenters are not listed again
//   addDatacenterRequested(pos)                 AddDatacenter at pos (Datacenter::x, y is the
//                                               box's top-left corner; boxes are 320 wide)
//   addRegionRequested(pos)                     a new region holding a datacenter at pos
//   addPodRequested(dc)                         AddPod to datacenter dc
//   editRequested(kind, id)                     focus the property panel on that object
//   selectionChanged(selection)                 drive the property panel
#pragma once

#include "topology/topologyselection.h"

#include "model/scenario.h"

#include <QWidget>

class QAction;
class QToolBar;
class QGraphicsScene;
class QGraphicsView;
class QGraphicsItem;

namespace archipelago::views {

class TopologyScene;
class TopologyCanvasView;

class TopologyCanvas : public QWidget
{
    Q_OBJECT

public:
    explicit TopologyCanvas(QWidget* parent = nullptr);
    ~TopologyCanvas() override;

    // Updates the items in place by id: new objects get items, removed ones lose them, the rest
    // are re-read (selection and view transform are kept). `scenario`, when given, colours each
    // datacenter by the pipeline stages its placement puts there.
    void setTopology(const core::Topology& topology, const core::Scenario* scenario = nullptr);
    const core::Topology& topology() const;

    TopologySelection selection() const;
    // Selects exactly these objects (ids not shown are ignored); does not emit selectionChanged.
    void setSelection(const TopologySelection& selection);

    bool isConnectMode() const;
    double zoom() const;

    // For tests and the app's screenshot: the parts and the item shown for an object.
    QGraphicsView* view() const;
    QGraphicsScene* scene() const;
    QToolBar* toolBar() const { return m_toolBar; }
    QGraphicsItem* itemFor(TopologyItemKind kind, core::Id id) const;
    int itemCount() const; // topology items (regions, datacenters, pods, links)

public slots:
    void fitToView();
    // Fits after the pending layout pass, or when next shown (a new document, a preset).
    void fitWhenReady();
    void zoomIn();
    void zoomOut();
    void setConnectMode(bool on);
    void requestAddDatacenter();
    void requestAddRegion();
    void requestAddPod();
    void requestRemoveSelected();

signals:
    void selectionChanged(const archipelago::views::TopologySelection& selection);
    void moveDatacentersRequested(const QList<core::Id>& ids, const QList<QPointF>& positions,
                                  int dragId);
    void moveFinished(int dragId);
    void connectRequested(core::Id a, core::Id b);
    void removeRequested(const QList<core::Id>& datacenters, const QList<core::Id>& links,
                         const QList<core::Id>& pods);
    void addDatacenterRequested(QPointF position);
    void addRegionRequested(QPointF position);
    void addPodRequested(core::Id datacenter);
    void editRequested(archipelago::views::TopologyItemKind kind, core::Id id);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void createToolBar();
    void onSceneSelectionChanged();
    void updateActions();
    core::Id targetDatacenterForPod() const;

    TopologyScene* m_scene;
    TopologyCanvasView* m_view;
    QToolBar* m_toolBar = nullptr;
    QAction* m_addPod = nullptr;
    QAction* m_connect = nullptr;
    QAction* m_remove = nullptr;
    TopologySelection m_lastSelection;
    bool m_settingSelection = false;
    QList<core::Id> m_shownDatacenters; // the datacenters of the topology shown, in order
    bool m_fitWhenShown = false;
    bool m_fitQueued = false;
};

} // namespace archipelago::views
