#include "panels/pinspanel.h"

#include <QHBoxLayout>
#include <QListWidget>
#include <QMenu>
#include <QPainter>
#include <QToolButton>
#include <QVBoxLayout>

namespace archipelago::app {

namespace {

constexpr int kNameRole = Qt::UserRole + 1;

QIcon swatch(const QColor& color)
{
    QPixmap pixmap(14, 14);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(color.darker(150));
    painter.setBrush(color);
    painter.drawEllipse(1, 1, 12, 12);
    return QIcon(pixmap);
}

QToolButton* button(const QString& text, const QString& toolTip, QWidget* parent)
{
    auto* b = new QToolButton(parent);
    b->setText(text);
    b->setToolTip(toolTip);
    b->setAutoRaise(true);
    return b;
}

} // namespace

PinsPanel::PinsPanel(QWidget* parent)
    : QWidget(parent)
    , m_list(new QListWidget(this))
{
    m_list->setObjectName(QStringLiteral("PinsList"));
    m_list->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    m_list->setContextMenuPolicy(Qt::CustomContextMenu);
    m_list->setToolTip(tr("Pinned design points: shown in every plot and in the comparison "
                          "table. Double-click to rename."));
    connect(m_list, &QWidget::customContextMenuRequested, this, &PinsPanel::showMenu);
    connect(m_list, &QListWidget::itemChanged, this, &PinsPanel::onItemChanged);
    connect(m_list, &QListWidget::currentRowChanged, this, &PinsPanel::updateButtons);

    auto* pin = button(tr("Pin"), tr("Pin the current design point (Ctrl+P)"), this);
    m_restore = button(tr("Restore"),
                       tr("Make the selected pin the current design point "
                          "(undoable)"),
                       this);
    m_rename = button(tr("Rename"), tr("Rename the selected pin (F2)"), this);
    m_remove = button(tr("Remove"), tr("Remove the selected pin (undoable)"), this);
    connect(pin, &QToolButton::clicked, this, &PinsPanel::pinRequested);
    connect(m_restore, &QToolButton::clicked, this,
            [this] { emit restoreRequested(currentIndex()); });
    connect(m_rename, &QToolButton::clicked, this, [this] {
        if (QListWidgetItem* item = m_list->currentItem())
            m_list->editItem(item);
    });
    connect(m_remove, &QToolButton::clicked, this,
            [this] { emit removeRequested(currentIndex()); });

    auto* buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    for (QToolButton* b : {pin, m_restore, m_rename, m_remove})
        buttons->addWidget(b);
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(buttons);
    layout->addWidget(m_list);
    updateButtons();
}

void PinsPanel::setRows(const QList<Row>& rows)
{
    const int current = m_list->currentRow();
    m_loading = true;
    m_list->clear();
    for (const Row& row : rows) {
        auto* item = new QListWidgetItem(swatch(row.color), row.name, m_list);
        item->setData(kNameRole, row.name);
        item->setFlags(item->flags() | Qt::ItemIsEditable);
        item->setToolTip(row.summary.isEmpty() ? tr("%1 — evaluating…").arg(row.name)
                                               : tr("%1 — %2").arg(row.name, row.summary));
        if (!row.summary.isEmpty())
            item->setText(row.name);
    }
    m_list->setCurrentRow(std::min(current, static_cast<int>(m_list->count()) - 1));
    m_loading = false;
    updateButtons();
}

int PinsPanel::currentIndex() const
{
    return m_list->currentRow();
}

void PinsPanel::onItemChanged(QListWidgetItem* item)
{
    if (m_loading)
        return;
    const QString name = item->text().trimmed();
    const QString old = item->data(kNameRole).toString();
    if (name.isEmpty() || name == old) {
        const QSignalBlocker blocker(m_list);
        item->setText(old);
        return;
    }
    emit renameRequested(m_list->row(item), name);
}

void PinsPanel::showMenu(const QPoint& pos)
{
    QMenu menu(this);
    const int row = m_list->row(m_list->itemAt(pos));
    menu.addAction(tr("Pin Current Design Point"), this, &PinsPanel::pinRequested);
    if (row >= 0) {
        menu.addSeparator();
        menu.addAction(tr("Restore"), this, [this, row] { emit restoreRequested(row); });
        menu.addAction(tr("Rename…"), this, [this, row] { m_list->editItem(m_list->item(row)); });
        menu.addAction(tr("Remove"), this, [this, row] { emit removeRequested(row); });
    }
    menu.exec(m_list->viewport()->mapToGlobal(pos));
}

void PinsPanel::updateButtons()
{
    const bool selected = m_list->currentRow() >= 0;
    m_restore->setEnabled(selected);
    m_rename->setEnabled(selected);
    m_remove->setEnabled(selected);
}

} // namespace archipelago::app
