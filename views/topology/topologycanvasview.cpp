#include "topology/topologycanvasview.h"

#include "topology/topologydatacenteritem.h"
#include "topology/topologylinkitem.h"
#include "topology/topologypoditem.h"
#include "topology/topologyregionitem.h"
#include "topology/topologyscene.h"

#include <QApplication>
#include <QGraphicsLineItem>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QWheelEvent>

#include <cmath>

namespace archipelago::views {

namespace {
constexpr double kMinZoom = 0.08;
constexpr double kMaxZoom = 4.0;
} // namespace

TopologyCanvasView::TopologyCanvasView(TopologyScene* scene, QWidget* parent)
    : QGraphicsView(scene, parent)
    , m_scene(scene)
{
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing |
                   QPainter::SmoothPixmapTransform);
    setDragMode(QGraphicsView::RubberBandDrag);
    setRubberBandSelectionMode(Qt::IntersectsItemShape);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setFocusPolicy(Qt::StrongFocus);
    setBackgroundRole(QPalette::Window);
    scene->setPalette(palette());
    scene->setFont(font());
}

void TopologyCanvasView::setConnectMode(bool on)
{
    if (m_connectMode == on)
        return;
    m_connectMode = on;
    setDragMode(on ? QGraphicsView::NoDrag : QGraphicsView::RubberBandDrag);
    updateCursor();
    emit connectModeChanged(on);
}

double TopologyCanvasView::zoom() const
{
    return transform().m11();
}

void TopologyCanvasView::zoomBy(double factor)
{
    const double target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    const double applied = target / zoom();
    scale(applied, applied);
}

void TopologyCanvasView::fitToView()
{
    QRectF content;
    for (QGraphicsItem* item : scene()->items())
        if (item->isVisible() && !item->parentItem() && item != m_connectLine)
            content = content.united(item->sceneBoundingRect());
    if (content.isNull())
        return;
    fitInView(content.adjusted(-40, -40, 40, 40), Qt::KeepAspectRatio);
    // Never blow a small topology up past 150 %: text would look oversized.
    if (zoom() > 1.5)
        zoomBy(1.5 / zoom());
    if (zoom() < kMinZoom)
        zoomBy(kMinZoom / zoom());
    centerOn(content.center());
}

TopologyDatacenterItem* TopologyCanvasView::datacenterAt(const QPoint& viewportPos) const
{
    for (QGraphicsItem* item : items(viewportPos)) {
        if (item == m_connectLine)
            continue;
        // A link label raised over a card (no free place for it) takes the click.
        if (qgraphicsitem_cast<TopologyLinkItem*>(item) && item->zValue() > 0)
            return nullptr;
        if (auto* dc = qgraphicsitem_cast<TopologyDatacenterItem*>(item))
            return dc;
        if (auto* pod = qgraphicsitem_cast<TopologyPodItem*>(item))
            return qgraphicsitem_cast<TopologyDatacenterItem*>(pod->parentItem());
    }
    return nullptr;
}

void TopologyCanvasView::mousePressEvent(QMouseEvent* event)
{
    m_pressViewportPos = event->position().toPoint();
    m_pressScenePos = mapToScene(m_pressViewportPos);
    const bool left = event->button() == Qt::LeftButton;
    if (event->button() == Qt::MiddleButton || (left && m_spaceHeld)) {
        m_gesture = Gesture::Pan;
        m_panLast = m_pressViewportPos;
        viewport()->setCursor(Qt::ClosedHandCursor);
        event->accept();
        return;
    }
    TopologyDatacenterItem* dc = datacenterAt(m_pressViewportPos);
    const bool connectGesture = event->button() == Qt::RightButton ||
                                (left && (m_connectMode || event->modifiers() & Qt::ShiftModifier));
    if (connectGesture) {
        if (dc)
            beginConnect(dc, m_pressScenePos);
        event->accept();
        return;
    }
    QGraphicsView::mousePressEvent(event); // selection, Ctrl-toggle, rubber band
    if (left && dc && !(event->modifiers() & Qt::ControlModifier))
        beginMove(event, dc);
}

void TopologyCanvasView::mouseMoveEvent(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    switch (m_gesture) {
    case Gesture::Pan: {
        const QPoint delta = pos - m_panLast;
        m_panLast = pos;
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
        event->accept();
        return;
    }
    case Gesture::Connect:
        if (m_connectLine)
            m_connectLine->setLine(QLineF(m_connectLine->line().p1(), mapToScene(pos)));
        event->accept();
        return;
    case Gesture::MovePending:
        if ((pos - m_pressViewportPos).manhattanLength() < QApplication::startDragDistance()) {
            event->accept();
            return;
        }
        m_gesture = Gesture::Move;
        ++m_dragId;
        [[fallthrough]];
    case Gesture::Move:
        updateMove(mapToScene(pos));
        event->accept();
        return;
    case Gesture::None:
        break;
    }
    QGraphicsView::mouseMoveEvent(event);
}

void TopologyCanvasView::mouseReleaseEvent(QMouseEvent* event)
{
    const Gesture gesture = m_gesture;
    m_gesture = Gesture::None;
    switch (gesture) {
    case Gesture::Pan:
        updateCursor();
        event->accept();
        return;
    case Gesture::Connect:
        finishConnect(event->position().toPoint());
        event->accept();
        return;
    case Gesture::Move:
        QGraphicsView::mouseReleaseEvent(event);
        emit moveFinished(m_dragId);
        return;
    case Gesture::MovePending:
    case Gesture::None:
        break;
    }
    QGraphicsView::mouseReleaseEvent(event);
    // A rubber band over a datacenter also touches its pods: keep the datacenter only.
    for (QGraphicsItem* item : scene()->selectedItems())
        if (item->type() == TopologyPodItem::Type && item->parentItem() &&
            item->parentItem()->isSelected())
            item->setSelected(false);
}

void TopologyCanvasView::beginMove(QMouseEvent* /*event*/, TopologyDatacenterItem* pressed)
{
    // Move every selected datacenter, plus the one pressed (also when a pod of it was hit).
    m_moveStart.clear();
    m_moveOrder.clear();
    for (const core::Datacenter& dc : m_scene->topology().datacenters) {
        TopologyDatacenterItem* item = m_scene->datacenterItem(dc.id);
        if (item && (item->isSelected() || item == pressed)) {
            m_moveStart.insert(dc.id, item->pos());
            m_moveOrder << dc.id;
        }
    }
    m_gesture = m_moveOrder.isEmpty() ? Gesture::None : Gesture::MovePending;
}

void TopologyCanvasView::updateMove(const QPointF& scenePos)
{
    const QPointF delta = scenePos - m_pressScenePos;
    QList<QPointF> positions;
    QList<core::Id> ids;
    for (core::Id id : std::as_const(m_moveOrder)) {
        TopologyDatacenterItem* item = m_scene->datacenterItem(id);
        if (!item)
            continue; // removed under our feet by a setTopology
        const QPointF target = m_moveStart.value(id) + delta;
        item->setPos(target); // visual only; setTopology reconciles with the model
        ids << id;
        positions << target;
    }
    if (!ids.isEmpty())
        emit moveDatacentersRequested(ids, positions, m_dragId);
}

void TopologyCanvasView::beginConnect(TopologyDatacenterItem* source, const QPointF& scenePos)
{
    m_gesture = Gesture::Connect;
    m_connectSource = source->id();
    const QPointF from = source->sceneBoundingRect().center();
    m_connectLine = new QGraphicsLineItem(QLineF(from, scenePos));
    QPen pen(palette().color(QPalette::Highlight), 2.0, Qt::DashLine, Qt::RoundCap);
    pen.setCosmetic(true);
    m_connectLine->setPen(pen);
    m_connectLine->setZValue(100.0);
    scene()->addItem(m_connectLine);
}

void TopologyCanvasView::finishConnect(const QPoint& viewportPos)
{
    delete m_connectLine; // removes it from the scene
    m_connectLine = nullptr;
    const TopologyDatacenterItem* target = datacenterAt(viewportPos);
    const core::Id source = m_connectSource;
    m_connectSource = -1;
    if (target && source >= 0 && target->id() != source)
        emit connectRequested(source, target->id());
}

void TopologyCanvasView::mouseDoubleClickEvent(QMouseEvent* event)
{
    for (QGraphicsItem* item : items(event->position().toPoint())) {
        if (const auto* pod = qgraphicsitem_cast<TopologyPodItem*>(item)) {
            emit editRequested(TopologyItemKind::Pod, pod->id());
        } else if (const auto* dc = qgraphicsitem_cast<TopologyDatacenterItem*>(item)) {
            emit editRequested(TopologyItemKind::Datacenter, dc->id());
        } else if (const auto* link = qgraphicsitem_cast<TopologyLinkItem*>(item)) {
            emit editRequested(TopologyItemKind::Link, link->id());
        } else if (const auto* region = qgraphicsitem_cast<TopologyRegionItem*>(item)) {
            emit editRequested(TopologyItemKind::Region, region->id());
        } else {
            continue;
        }
        event->accept();
        return;
    }
    QGraphicsView::mouseDoubleClickEvent(event);
}

void TopologyCanvasView::wheelEvent(QWheelEvent* event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        // 120 units per notch; 15 % per notch, smooth for high-resolution touchpads.
        zoomBy(std::pow(1.15, event->angleDelta().y() / 120.0));
        event->accept();
        return;
    }
    QGraphicsView::wheelEvent(event);
}

void TopologyCanvasView::keyPressEvent(QKeyEvent* event)
{
    if (event->matches(QKeySequence::Delete) || event->key() == Qt::Key_Backspace ||
        event->key() == Qt::Key_Delete) {
        emit removeSelectedRequested();
    } else if (event->matches(QKeySequence::ZoomIn) ||
               (event->key() == Qt::Key_Equal && event->modifiers() & Qt::ControlModifier)) {
        zoomBy(1.25);
    } else if (event->matches(QKeySequence::ZoomOut)) {
        zoomBy(1 / 1.25);
    } else if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
        m_spaceHeld = true;
        updateCursor();
    } else if (event->key() == Qt::Key_Escape && (m_connectMode || m_connectLine)) {
        delete m_connectLine;
        m_connectLine = nullptr;
        m_gesture = Gesture::None;
        setConnectMode(false);
    } else {
        QGraphicsView::keyPressEvent(event);
        return;
    }
    event->accept();
}

void TopologyCanvasView::keyReleaseEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
        m_spaceHeld = false;
        updateCursor();
        event->accept();
        return;
    }
    QGraphicsView::keyReleaseEvent(event);
}

void TopologyCanvasView::focusOutEvent(QFocusEvent* event)
{
    m_spaceHeld = false;
    updateCursor();
    QGraphicsView::focusOutEvent(event);
}

void TopologyCanvasView::changeEvent(QEvent* event)
{
    // Items paint with the scene palette: follow the widget (light/dark switch at runtime).
    if (event->type() == QEvent::PaletteChange)
        m_scene->setPalette(palette());
    else if (event->type() == QEvent::FontChange)
        m_scene->setFont(font());
    QGraphicsView::changeEvent(event);
}

void TopologyCanvasView::updateCursor()
{
    if (m_spaceHeld)
        viewport()->setCursor(Qt::OpenHandCursor);
    else if (m_connectMode)
        viewport()->setCursor(Qt::CrossCursor);
    else
        viewport()->unsetCursor();
}

} // namespace archipelago::views
