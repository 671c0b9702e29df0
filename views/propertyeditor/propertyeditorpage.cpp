#include "propertyeditor/propertyeditorpage.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>

namespace archipelago::views {

PropertyEditorPage::PropertyEditorPage(EditSink* sink, const QString& title, QWidget* parent)
    : QWidget(parent)
    , m_sink(sink)
    , m_title(new QLabel(title, this))
{
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    m_title->setFont(titleFont);
    m_title->setContentsMargins(4, 4, 4, 4);
    m_title->setWordWrap(true);

    auto* content = new QWidget;
    m_sections = new QVBoxLayout(content);
    m_sections->setContentsMargins(4, 0, 4, 4);
    m_sections->addStretch(1);

    auto* scroll = new QScrollArea(this);
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_title);
    layout->addWidget(scroll, 1);
}

void PropertyEditorPage::load(Kind kind, const QList<core::Id>& ids,
                              const std::vector<core::Diagnostic>& diagnostics)
{
    m_kind = kind;
    m_ids = ids;
    {
        // Loading values is not an edit (labplot's XYCurveDock: m_initializing).
        const QSignalBlocker blocker(this);
        loadValues();
    }
    for (FieldRow* row : findChildren<FieldRow*>())
        row->showDiagnostics(diagnostics);
}

void PropertyEditorPage::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const int cap = std::max(fontMetrics().averageCharWidth() * 10, width() * 45 / 100);
    for (ElidedLabel* label : findChildren<ElidedLabel*>())
        label->setWidthCap(cap);
}

QString PropertyEditorPage::title() const
{
    return m_title->text();
}

void PropertyEditorPage::setTitle(const QString& title)
{
    m_title->setText(title);
}

QFormLayout* PropertyEditorPage::addSection(const QString& title)
{
    auto* box = new QGroupBox(title);
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setLabelAlignment(Qt::AlignLeft);
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);
    m_sections->insertWidget(m_sections->count() - 1, box); // before the stretch
    return form;
}

QLabel* PropertyEditorPage::addNote(QFormLayout* form, const QString& label, const QString& toolTip)
{
    auto* value = new QLabel;
    value->setWordWrap(true);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    value->setToolTip(toolTip);
    auto* title = new ElidedLabel(label);
    title->setToolTip(toolTip.isEmpty() ? label : label + QStringLiteral("\n") + toolTip);
    form->addRow(title, value);
    return value;
}

namespace {

template <typename Objects>
QStringList pointersOf(const Objects& objects, const QList<core::Id>& ids, const QString& prefix,
                       const QString& suffix)
{
    QStringList pointers;
    for (core::Id id : ids)
        for (std::size_t i = 0; i < objects.size(); ++i)
            if (objects[i].id == id)
                pointers << prefix + QString::number(i) + suffix;
    return pointers;
}

} // namespace

QStringList datacenterPointers(const core::Scenario& scenario, const QList<core::Id>& ids,
                               const QString& suffix)
{
    return pointersOf(scenario.topology.datacenters, ids, QStringLiteral("/topology/datacenters/"),
                      suffix);
}

QStringList linkPointers(const core::Scenario& scenario, const QList<core::Id>& ids,
                         const QString& suffix)
{
    return pointersOf(scenario.topology.links, ids, QStringLiteral("/topology/dci_links/"), suffix);
}

} // namespace archipelago::views
