// The interactive view of the topology scene: selection (click, Ctrl-click, rubber band),
// dragging datacenters, connecting two datacenters, zoom (Ctrl+wheel) and pan (middle-drag or
// Space-drag). It never changes the topology: it moves items visually during a drag and
// reports intents; the app applies them and calls TopologyScene::setTopology.
#pragma once

#include "topology/topologyselection.h"

#include <QGraphicsView>
#include <QHash>

class QGraphicsLineItem;

namespace archipelago::views {

class TopologyScene;
class TopologyDatacenterItem;

class TopologyCanvasView : public QGraphicsView
{
    Q_OBJECT

public:
    explicit TopologyCanvasView(TopologyScene* scene, QWidget* parent = nullptr);

    TopologyScene* topologyScene() const { return m_scene; }
    bool isConnectMode() const { return m_connectMode; }
    void setConnectMode(bool on);
    double zoom() const;
    void zoomBy(double factor);
    void fitToView();
    // The datacenter under a viewport position (also through its pods), or nullptr.
    TopologyDatacenterItem* datacenterAt(const QPoint& viewportPos) const;

signals:
    void moveDatacentersRequested(const QList<core::Id>& ids, const QList<QPointF>& positions,
                                  int dragId);
    void moveFinished(int dragId);
    void connectRequested(core::Id a, core::Id b);
    void removeSelectedRequested();
    void editRequested(archipelago::views::TopologyItemKind kind, core::Id id);
    void connectModeChanged(bool on);

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void keyReleaseEvent(QKeyEvent* event) override;
    void changeEvent(QEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;

private:
    enum class Gesture
    {
        None,
        Pan,
        Connect,
        MovePending,
        Move
    };

    void beginMove(QMouseEvent* event, TopologyDatacenterItem* pressed);
    void updateMove(const QPointF& scenePos);
    void beginConnect(TopologyDatacenterItem* source, const QPointF& scenePos);
    void finishConnect(const QPoint& viewportPos);
    void updateCursor();

    TopologyScene* m_scene;
    Gesture m_gesture = Gesture::None;
    bool m_connectMode = false;
    bool m_spaceHeld = false;
    QPoint m_pressViewportPos;
    QPointF m_pressScenePos;
    QPoint m_panLast;
    QHash<core::Id, QPointF> m_moveStart; // datacenter -> position at press
    QList<core::Id> m_moveOrder;          // the moved datacenters, in topology order
    int m_dragId = 0;
    core::Id m_connectSource = -1;
    QGraphicsLineItem* m_connectLine = nullptr;
};

} // namespace archipelago::views
