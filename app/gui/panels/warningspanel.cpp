#include "panels/warningspanel.h"

#include <QApplication>
#include <QStyle>

namespace archipelago::app {

WarningsPanel::WarningsPanel(QWidget* parent)
    : QListWidget(parent)
{
    setWordWrap(true);
    setAlternatingRowColors(true);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setToolTip(tr("What the cost model flags for the current design point"));
}

void WarningsPanel::setEvaluation(const core::Evaluation& evaluation)
{
    clear();
    const QIcon warningIcon = style()->standardIcon(QStyle::SP_MessageBoxWarning);
    const QIcon infoIcon = style()->standardIcon(QStyle::SP_MessageBoxInformation);
    for (const core::Warning& w : evaluation.warnings) {
        auto* item =
            new QListWidgetItem(warningIcon, QString::fromStdString(core::warningText(w)), this);
        const QString key = QString::fromUtf8(core::toString(w.code).data());
        item->setToolTip(tr("Warning code: %1").arg(key));
        item->setData(Qt::UserRole, key);
    }
    for (const std::string& assumption : evaluation.assumptions) {
        auto* item = new QListWidgetItem(infoIcon, QString::fromStdString(assumption), this);
        item->setToolTip(tr("An assumption the model made"));
    }
    if (count() == 0)
        new QListWidgetItem(tr("No warnings for the current design point."), this);
    const int warnings = static_cast<int>(evaluation.warnings.size());
    if (warnings != m_warnings) {
        m_warnings = warnings;
        emit warningCountChanged(warnings);
    }
}

} // namespace archipelago::app
