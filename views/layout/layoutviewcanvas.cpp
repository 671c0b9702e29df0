#include "layout/layoutviewcanvas.h"

#include "layout/layoutviewpainter.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <set>

namespace archipelago::views {

namespace {
constexpr double kBoundaryTolerance = 5.0;
} // namespace

LayoutViewCanvas::LayoutViewCanvas(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setBackgroundRole(QPalette::Base);
}

void LayoutViewCanvas::setScenario(const core::Scenario& scenario)
{
    m_scenario = scenario;
    // A structural change under a drag ends the drag (its indices may no longer exist).
    if (m_drag == Drag::Stage && m_dragBand >= static_cast<int>(geometry().bands.size()))
        m_drag = Drag::None;
    if (m_drag == Drag::Boundary &&
        static_cast<int>(m_preview.size()) != std::max(1, scenario.parallelism.pp))
        m_drag = Drag::None;
    if (m_drag != Drag::Boundary)
        m_preview.clear();
    update();
}

void LayoutViewCanvas::setEvaluation(const core::Evaluation* evaluation)
{
    m_evaluation.reset();
    if (evaluation)
        m_evaluation = *evaluation;
    update();
}

LayoutGeometry LayoutViewCanvas::geometry() const
{
    return computeLayoutGeometry(m_scenario, m_preview, QRectF(rect()).adjusted(8, 8, -8, -8));
}

LayoutViewPainter LayoutViewCanvas::painter() const
{
    return LayoutViewPainter(m_scenario, m_evaluation ? &*m_evaluation : nullptr, palette(),
                             font());
}

void LayoutViewCanvas::paintEvent(QPaintEvent* /*event*/)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (m_scenario.topology.datacenters.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter,
                   tr("No datacenter yet: add one on the topology canvas."));
        return;
    }
    const LayoutGeometry g = geometry();
    const LayoutViewPainter painter = this->painter();
    painter.paintAxis(p, g);
    for (const LayoutColumn& column : g.columns)
        painter.paintColumn(p, g, column);
    m_drawnLabels = painter.paintBands(p, g, m_drag == Drag::Stage ? m_dragBand : -1);
    // One label per (boundary, datacenter pair): shards crossing together share it.
    std::set<std::tuple<int, int, int>> labelled;
    std::vector<QRectF> taken;
    for (const LayoutCrossing& crossing : g.crossings)
        painter.paintCrossing(
            p, g, crossing,
            labelled.insert({crossing.boundary, crossing.fromColumn, crossing.toColumn}).second,
            taken);
    painter.paintFooter(p, g);
    const int handle = m_drag == Drag::Boundary ? m_dragBoundary : m_hoverBoundary;
    if (handle >= 0 && m_drag != Drag::Stage)
        painter.paintBoundaryHandle(p, g, handle);

    if (m_drag == Drag::Stage && m_dragBand >= 0 && m_dragBand < std::ssize(g.bands)) {
        const int target = g.columnAt(m_dragPos);
        if (target >= 0) {
            p.setPen(QPen(palette().color(QPalette::Highlight), 2.0));
            p.setBrush(Qt::NoBrush);
            p.drawRoundedRect(g.columns[static_cast<std::size_t>(target)].rect, 8, 8);
        }
        LayoutBand ghost = g.bands[static_cast<std::size_t>(m_dragBand)];
        ghost.rect.translate(m_dragPos - m_pressPos);
        p.setOpacity(0.8);
        painter.paintBand(p, ghost, true);
        p.setOpacity(1.0);
    }
}

void LayoutViewCanvas::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    const LayoutGeometry g = geometry();
    m_pressPos = m_dragPos = event->position();
    m_dragBoundary = g.boundaryAt(m_pressPos, kBoundaryTolerance);
    if (m_dragBoundary >= 0) {
        m_drag = Drag::Boundary;
        m_preview = g.layersPerStage;
    } else {
        m_dragBand = g.bandAt(m_pressPos);
        m_drag = Drag::None; // a stage drag starts past the drag distance
    }
    update();
}

void LayoutViewCanvas::mouseMoveEvent(QMouseEvent* event)
{
    const QPointF pos = event->position();
    m_dragPos = pos;
    if (m_drag == Drag::Boundary) {
        const LayoutGeometry g = geometry();
        const auto i = static_cast<std::size_t>(m_dragBoundary);
        const int first = g.firstLayerOf(m_dragBoundary);
        const int end = g.firstLayerOf(m_dragBoundary + 2);
        const int split = std::clamp(g.layerAt(pos.y()), first + 1, end - 1);
        m_preview[i] = split - first;
        m_preview[i + 1] = end - split;
        update();
        return;
    }
    if ((event->buttons() & Qt::LeftButton) && m_drag == Drag::None && m_dragBand >= 0 &&
        (pos - m_pressPos).manhattanLength() >= QApplication::startDragDistance()) {
        m_drag = Drag::Stage;
        setCursor(Qt::ClosedHandCursor);
    }
    if (m_drag == Drag::Stage) {
        update();
        return;
    }
    updateCursor(pos);
}

void LayoutViewCanvas::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mouseReleaseEvent(event);
    const Drag drag = m_drag;
    m_drag = Drag::None;
    if (drag == Drag::Boundary) {
        const std::vector<int> split = m_preview;
        m_preview.clear();
        update();
        if (split != core::effectiveLayersPerStage(m_scenario))
            emit layersPerStageRequested(split);
    } else if (drag == Drag::Stage) {
        const LayoutGeometry g = geometry();
        const int column = g.columnAt(event->position());
        update();
        if (column >= 0 && m_dragBand >= 0 && m_dragBand < std::ssize(g.bands)) {
            const LayoutBand& band = g.bands[static_cast<std::size_t>(m_dragBand)];
            const core::Id target = g.columns[static_cast<std::size_t>(column)].datacenter;
            if (target != band.datacenter)
                emit stageDatacenterRequested(band.shard, band.stage, target);
        }
    }
    m_dragBand = -1;
    updateCursor(event->position());
}

void LayoutViewCanvas::leaveEvent(QEvent* event)
{
    m_hoverBoundary = -1;
    update();
    QWidget::leaveEvent(event);
}

void LayoutViewCanvas::updateCursor(const QPointF& pos)
{
    const LayoutGeometry g = geometry();
    const int boundary = g.boundaryAt(pos, kBoundaryTolerance);
    if (boundary != m_hoverBoundary) {
        m_hoverBoundary = boundary;
        update();
    }
    if (boundary >= 0)
        setCursor(Qt::SizeVerCursor);
    else if (g.bandAt(pos) >= 0)
        setCursor(Qt::OpenHandCursor);
    else
        unsetCursor();
}

void LayoutViewCanvas::contextMenuEvent(QContextMenuEvent* event)
{
    const LayoutGeometry g = geometry();
    const int index = g.bandAt(event->pos());
    QMenu menu(this);
    if (index >= 0) {
        const LayoutBand band = g.bands[static_cast<std::size_t>(index)];
        QMenu* move = menu.addMenu(tr("Move stage %1 to").arg(band.stage));
        for (const core::Datacenter& dc : m_scenario.topology.datacenters) {
            QAction* action = move->addAction(QString::fromStdString(dc.name));
            action->setEnabled(dc.id != band.datacenter);
            const core::Id id = dc.id;
            connect(action, &QAction::triggered, this, [this, band, id] {
                emit stageDatacenterRequested(band.shard, band.stage, id);
            });
        }
    }
    const std::vector<int> even = evenSplit(m_scenario);
    QAction* split = menu.addAction(tr("Split layers evenly"));
    split->setEnabled(even != core::effectiveLayersPerStage(m_scenario));
    connect(split, &QAction::triggered, this, [this, even] { emit layersPerStageRequested(even); });
    menu.exec(event->globalPos());
}

bool LayoutViewCanvas::event(QEvent* event)
{
    if (event->type() != QEvent::ToolTip)
        return QWidget::event(event);
    const auto* help = static_cast<QHelpEvent*>(event);
    const LayoutGeometry g = geometry();
    const int index = g.bandAt(help->pos());
    if (index < 0) {
        QToolTip::hideText();
        event->ignore();
        return true;
    }
    const LayoutBand& band = g.bands[static_cast<std::size_t>(index)];
    const core::Datacenter* dc = core::findDatacenter(m_scenario.topology, band.datacenter);
    QToolTip::showText(help->globalPos(),
                       QStringLiteral("%1\n%2\nshard %3 in %4 — drag to another datacenter, or "
                                      "drag a stage boundary to move layers")
                           .arg(painter().bandLabel(band), painter().bandDetail(band),
                                QString::number(band.shard),
                                dc ? QString::fromStdString(dc->name) : QString()),
                       this);
    return true;
}

} // namespace archipelago::views
