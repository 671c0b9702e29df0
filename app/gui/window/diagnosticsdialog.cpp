#include "window/diagnosticsdialog.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStringList>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace archipelago::app {

DiagnosticsDialog::DiagnosticsDialog(const QString& path,
                                     const std::vector<core::Diagnostic>& diagnostics,
                                     QWidget* parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Cannot Open Scenario"));
    auto* intro = new QLabel(
        tr("“%1” could not be opened (%n problem(s)). The current document is unchanged.", nullptr,
           static_cast<int>(diagnostics.size()))
            .arg(QFileInfo(path).fileName()),
        this);
    intro->setWordWrap(true);

    auto* table = new QTreeWidget(this);
    table->setRootIsDecorated(false);
    table->setAlternatingRowColors(true);
    table->setHeaderLabels({tr("Severity"), tr("File"), tr("JSON pointer"), tr("Problem")});
    table->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->header()->setStretchLastSection(true);
    QStringList lines;
    for (const core::Diagnostic& d : diagnostics) {
        auto* item = new QTreeWidgetItem(table);
        item->setText(0, d.severity == core::Diagnostic::Severity::Error ? tr("error")
                                                                         : tr("warning"));
        item->setText(1, QFileInfo(QString::fromStdString(d.file)).fileName());
        item->setToolTip(1, QString::fromStdString(d.file));
        item->setText(2,
                      d.pointer.empty() ? QStringLiteral("/") : QString::fromStdString(d.pointer));
        item->setText(3, QString::fromStdString(d.message));
        item->setToolTip(3, QString::fromStdString(d.message));
        lines << QString::fromStdString(d.toString());
    }

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* copy = buttons->addButton(tr("Copy"), QDialogButtonBox::ActionRole);
    connect(copy, &QPushButton::clicked, this,
            [lines] { QApplication::clipboard()->setText(lines.join(QLatin1Char('\n'))); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(table, 1);
    layout->addWidget(buttons);
    resize(820, 360);
}

} // namespace archipelago::app
