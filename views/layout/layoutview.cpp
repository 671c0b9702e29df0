#include "layout/layoutview.h"

#include "common/format.h"
#include "layout/layoutviewcanvas.h"
#include "model/placementpresets.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

namespace archipelago::views {

LayoutView::LayoutView(QWidget* parent)
    : QWidget(parent)
    , m_canvas(new LayoutViewCanvas(this))
    , m_crossing(new QComboBox(this))
    , m_evenSplit(new QToolButton(this))
    , m_summary(new QLabel(this))
{
    auto* label = new QLabel(tr("Across datacenters:"), this);
    m_crossing->setToolTip(tr("Which parallel dimension crosses each datacenter boundary.\n"
                              "PP: one pipeline, stages split in proportion to GPUs.\n"
                              "DP: every datacenter runs whole pipelines; gradients cross.\n"
                              "By region, or per boundary: \"a ─PP─ b ─DP─ c\"."));
    m_crossing->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    label->setBuddy(m_crossing);
    m_evenSplit->setText(tr("Even split"));
    m_evenSplit->setToolTip(tr("Give every stage the same number of layers"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setForegroundRole(QPalette::PlaceholderText);
    m_summary->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // never widens
    m_summary->setMinimumWidth(0);

    auto* header = new QHBoxLayout;
    header->setContentsMargins(8, 6, 8, 2);
    header->addWidget(label);
    header->addWidget(m_crossing);
    header->addWidget(m_evenSplit);
    header->addStretch(1);
    header->addWidget(m_summary);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(header);
    layout->addWidget(m_canvas, 1);

    connect(m_crossing, &QComboBox::activated, this, &LayoutView::onCrossingActivated);
    connect(m_evenSplit, &QToolButton::clicked, this,
            [this] { emit layersPerStageRequested(evenSplit(m_canvas->scenario())); });
    connect(m_canvas, &LayoutViewCanvas::layersPerStageRequested, this,
            &LayoutView::layersPerStageRequested);
    connect(m_canvas, &LayoutViewCanvas::stageDatacenterRequested, this,
            &LayoutView::stageDatacenterRequested);
    updateHeader();
}

void LayoutView::setScenario(const core::Scenario& scenario)
{
    m_canvas->setScenario(scenario);
    updateHeader();
}

void LayoutView::setEvaluation(const core::Evaluation& evaluation)
{
    m_canvas->setEvaluation(&evaluation);
}

void LayoutView::clearEvaluation()
{
    m_canvas->setEvaluation(nullptr);
}

const core::Scenario& LayoutView::scenario() const
{
    return m_canvas->scenario();
}

QWidget* LayoutView::canvas() const
{
    return m_canvas;
}

LayoutGeometry LayoutView::layoutGeometry() const
{
    return m_canvas->geometry();
}

void LayoutView::onCrossingActivated(int index)
{
    const core::Scenario& s = m_canvas->scenario();
    if (index < 0 || index >= static_cast<int>(m_choices.size()))
        return;
    const core::Placement placement =
        core::pipelinesPerGroup(s, m_choices[static_cast<std::size_t>(index)].groups);
    updateHeader(); // shows the current state until the app applies the request
    if (placement != s.placement)
        emit placementRequested(placement);
}

void LayoutView::updateHeader()
{
    const core::Scenario& s = m_canvas->scenario();
    m_evenSplit->setEnabled(evenSplit(s) != core::effectiveLayersPerStage(s));
    const QSignalBlocker blocker(m_crossing);
    std::vector<CrossingChoice> choices = crossingChoices(s);
    const bool relist = choices.size() != m_choices.size() ||
                        !std::equal(choices.begin(), choices.end(), m_choices.begin(),
                                    [](const CrossingChoice& a, const CrossingChoice& b) {
                                        return a.label == b.label && a.groups == b.groups;
                                    });
    if (relist) {
        m_choices = std::move(choices);
        m_crossing->clear();
        for (const CrossingChoice& choice : m_choices) {
            m_crossing->addItem(choice.label);
            m_crossing->setItemData(m_crossing->count() - 1, choice.toolTip, Qt::ToolTipRole);
        }
    }
    m_crossing->setEnabled(!m_choices.empty());
    const int current = currentCrossingChoice(s, m_choices);
    if (m_choices.empty())
        m_crossing->setPlaceholderText(tr("nothing crosses — one datacenter"));
    else if (current < 0)
        m_crossing->setPlaceholderText(tr("custom — %1").arg(crossingChain(s)));
    m_crossing->setCurrentIndex(current);

    const core::Parallelism& par = s.parallelism;
    QString dims = QStringLiteral("TP %1").arg(par.tp);
    if (par.cp > 1)
        dims += QStringLiteral(" × CP %1").arg(par.cp);
    dims += QStringLiteral(" × PP %1 × DP %2").arg(par.pp).arg(formatCount(core::dataParallel(s)));
    if (par.ep > 1)
        dims += QStringLiteral(" (EP %1)").arg(par.ep);
    if (par.virtualStages > 1)
        dims += QStringLiteral(" · %1 virtual stages").arg(par.virtualStages);
    const std::int64_t gpus = std::int64_t{par.tp} * par.cp * par.pp * core::dataParallel(s);
    m_summary->setText(QStringLiteral("%1 = %2 of %3")
                           .arg(dims, formatCount(gpus), formatGpus(core::totalGpus(s.topology))));
}

} // namespace archipelago::views
