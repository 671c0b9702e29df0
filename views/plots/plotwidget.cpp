#include "plots/plotwidget.h"

#include "plots/plotexport.h"
#include "plots/plotstyle.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QMenu>
#include <QRegularExpression>
#include <QToolTip>
#include <QVBoxLayout>

namespace archipelago::views {

PlotWidget::PlotWidget(const QString& title, const QString& valueAxisLabel, int legendColumns,
                       QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_title(title)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setObjectName(title);
    m_plot->setMinimumSize(260, 220);
    setupPlotFrame(m_plot, title, valueAxisLabel, legendColumns);
    applyPlotPalette(m_plot, palette());

    // Category labels tilt only when they do not fit the current width.
    connect(m_plot, &QCustomPlot::beforeReplot, this, [this] { fitCategoryLabels(m_plot); });
    // The replot may lay the axis rect out anew (taller tick labels): once more with its real
    // height, at most twice in a row, so that two layouts can never alternate for ever.
    connect(m_plot, &QCustomPlot::afterReplot, this, [this] {
        if (categoryLabelsNeedRefit(m_plot) && m_refits < 2) {
            ++m_refits;
            m_plot->replot(QCustomPlot::rpQueuedReplot);
        } else {
            m_refits = 0;
        }
    });

    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mouseMove, this, &PlotWidget::onMouseMove);
    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_plot, &QWidget::customContextMenuRequested, this, &PlotWidget::showContextMenu);
}

PlotWidget::~PlotWidget() = default;

bool PlotWidget::exportTo(const QString& path, QSize size, QString* error) const
{
    return exportPlot(m_plot, path, size, error);
}

void PlotWidget::setTitle(const QString& title)
{
    m_title = title;
    m_plot->setObjectName(title);
    for (int i = 0; i < m_plot->plotLayout()->elementCount(); ++i) {
        if (auto* element = qobject_cast<QCPTextElement*>(m_plot->plotLayout()->elementAt(i)))
            element->setText(title);
    }
}

void PlotWidget::requestReplot()
{
    // Hidden, a replot draws what nobody sees; an edit in the window rebuilds every plot, and
    // the hidden ones (the pipeline timeline behind the topology tab, the explore front behind
    // the plots) cost as much as the visible ones. A plot never shown (a test's, an export's)
    // is not hidden in this sense: it has no window to show it.
    if (!isVisible() && window()->isVisible()) {
        m_replotWhenShown = true;
        return;
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void PlotWidget::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_replotWhenShown) {
        m_replotWhenShown = false;
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

void PlotWidget::addContextMenuActions(QMenu* /*menu*/) {}

void PlotWidget::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange) {
        applyPlotPalette(m_plot, palette());
        requestReplot();
    }
    QWidget::changeEvent(event);
}

void PlotWidget::onMouseMove(QMouseEvent* event)
{
    QString text = toolTipAt(event->position().toPoint());
    if (text.isEmpty()) // over a (wrapped, rotated or elided) category label: its full name
        text = categoryToolTipAt(m_plot, event->position().toPoint());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
}

void PlotWidget::showContextMenu(const QPoint& pos)
{
    QMenu menu(this);
    addContextMenuActions(&menu);
    if (!menu.isEmpty())
        menu.addSeparator();
    QString name = m_title.toLower();
    name.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
    while (name.endsWith(QLatin1Char('-')))
        name.chop(1);
    menu.addAction(QStringLiteral("Export…"), this,
                   [this, name] { exportPlotInteractively(m_plot, this, name); });
    menu.exec(m_plot->mapToGlobal(pos));
}

} // namespace archipelago::views
