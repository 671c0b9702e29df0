#include "propertypanel.h"

#include "propertyrows.h"

#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QVBoxLayout>

namespace archipelago::views {

PropertyPanel::PropertyPanel(QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_description(new QLabel(this))
    , m_rows(new QTreeWidget(this))
{
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    m_title->setFont(titleFont);
    m_title->setContentsMargins(4, 4, 4, 4);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_description->setWordWrap(true);
    m_description->setContentsMargins(4, 0, 4, 4);
    m_description->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_description->setAlignment(Qt::AlignLeft | Qt::AlignTop);

    m_rows->setColumnCount(3);
    m_rows->setHeaderLabels({tr("Property"), tr("Value"), tr("Unit")});
    m_rows->setRootIsDecorated(false);
    m_rows->setIndentation(14);
    m_rows->setUniformRowHeights(true);
    m_rows->setAlternatingRowColors(true);
    m_rows->setSelectionMode(QAbstractItemView::NoSelection);
    m_rows->setFocusPolicy(Qt::NoFocus);
    m_rows->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_rows->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_rows->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_rows->header()->setStretchLastSection(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_title);
    layout->addWidget(m_description);
    layout->addWidget(m_rows);
}

void PropertyPanel::showItem(const core::Scenario& scenario, const ScenarioItem& item)
{
    m_item = item;
    m_title->setText(itemTitle(scenario, item));
    const QString description = itemDescription(scenario, item);
    m_description->setText(description);
    m_description->setVisible(!description.isEmpty());
    m_rows->setUpdatesEnabled(false);
    m_rows->clear();
    QFont headingFont = m_rows->font();
    headingFont.setBold(true);
    QTreeWidgetItem* group = nullptr; // rows after a heading are its children
    for (const PropertyRow& row : propertyRows(scenario, item)) {
        if (row.heading) {
            group = new QTreeWidgetItem(m_rows);
            group->setText(0, row.name);
            group->setFont(0, headingFont);
            group->setFirstColumnSpanned(true);
            continue;
        }
        auto* treeItem = group ? new QTreeWidgetItem(group) : new QTreeWidgetItem(m_rows);
        treeItem->setText(0, row.name);
        treeItem->setText(1, row.value);
        treeItem->setText(2, row.unit);
        treeItem->setToolTip(1, row.value);
    }
    m_rows->expandAll();
    m_rows->setUpdatesEnabled(true);
}

QString PropertyPanel::valueOf(const QString& name) const
{
    for (QTreeWidgetItemIterator it(m_rows); *it; ++it)
        if ((*it)->text(0) == name)
            return (*it)->text(1);
    return {};
}

} // namespace archipelago::views
