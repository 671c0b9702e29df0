#include "window/helpdialogs.h"

#include "validation/builtinvalidation.h"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <set>

namespace archipelago::app {

namespace {

QString tr(const char* text)
{
    return QApplication::translate("HelpDialogs", text);
}

QString withoutMnemonic(QString text)
{
    text.replace(QStringLiteral("&&"), QStringLiteral("\x01"));
    text.remove(QLatin1Char('&'));
    text.replace(QStringLiteral("\x01"), QStringLiteral("&"));
    text.remove(QStringLiteral("…"));
    return text.trimmed();
}

// "View › Theme": the titles of the menus above the action's first menu.
QString menuPath(const QAction* action)
{
    const QMenu* menu = nullptr;
    for (QObject* object : action->associatedObjects())
        if ((menu = qobject_cast<const QMenu*>(object)))
            break;
    QStringList titles;
    while (menu) {
        // A title-less menu that re-lists a menu (a context or overflow menu) adds no level.
        const QString title = withoutMnemonic(menu->title());
        if (!title.isEmpty())
            titles.prepend(title);
        const QMenu* parent = nullptr;
        if (const QAction* menuAction = menu->menuAction())
            for (QObject* object : menuAction->associatedObjects())
                if ((parent = qobject_cast<const QMenu*>(object)))
                    break;
        menu = parent;
    }
    return titles.join(QStringLiteral(" › "));
}

QString percent(double fraction)
{
    return QStringLiteral("%1%").arg(100.0 * fraction, 0, 'f', 1);
}

QString validationTableHtml()
{
    const std::optional<core::ValidationSummary> summary = core::builtinValidationSummary();
    if (!summary)
        return QStringLiteral("<p><i>%1</i></p>")
            .arg(tr("No validation data was built into this program (the build found no "
                    "../shared/validation folder); run <tt>archipelago-cli validate</tt> on a "
                    "runs file to see the error."));
    QString html =
        QStringLiteral("<table border=\"1\" cellspacing=\"0\" cellpadding=\"4\">"
                       "<tr><th>%1</th><th>%2</th><th>%3</th><th>%4</th></tr>")
            .arg(tr("runs file"), tr("runs evaluated"), tr("mean |error|"), tr("largest |error|"));
    std::set<std::string> sources;
    for (const core::ValidationFileSummary& file : summary->files) {
        for (const core::PublishedRun& run : file.runs)
            if (!run.source.empty())
                sources.insert(run.source);
        const int evaluated = file.report.evaluated;
        const bool any = evaluated > 0;
        html += QStringLiteral("<tr><td>%1</td><td align=\"right\">%2 / %3</td>"
                               "<td align=\"right\">%4</td><td align=\"right\">%5</td></tr>")
                    .arg(QString::fromStdString(file.file).toHtmlEscaped())
                    .arg(evaluated)
                    .arg(file.runs.size())
                    .arg(any ? percent(file.report.meanAbsError) : QStringLiteral("—"),
                         any ? percent(file.report.maxAbsError) : QStringLiteral("—"));
    }
    html += QStringLiteral("</table><p><b>%1</b></p>").arg(validationFigure().toHtmlEscaped());
    if (summary->evaluated < summary->runs)
        html += QStringLiteral("<p>%1</p>")
                    .arg(tr("A run that is not evaluated does not fit in HBM in any admissible "
                            "setting of the knobs its paper leaves unpublished; "
                            "<tt>archipelago-cli validate</tt> prints why."));
    if (!sources.empty()) {
        html += QStringLiteral("<p>%1</p><ul>").arg(tr("Sources of the measured times:"));
        for (const std::string& source : sources)
            html +=
                QStringLiteral("<li>%1</li>").arg(QString::fromStdString(source).toHtmlEscaped());
        html += QStringLiteral("</ul>");
    }
    return html;
}

// The window's dialog called `name`, or a new one made by `make`; shown and raised.
template <typename Make> QDialog* showOnce(QWidget* window, const QString& name, Make make)
{
    auto* dialog = window ? window->findChild<QDialog*>(name, Qt::FindDirectChildrenOnly) : nullptr;
    if (!dialog) {
        dialog = make();
        dialog->setObjectName(name);
        auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
        QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
        dialog->layout()->addWidget(buttons);
    }
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
    return dialog;
}

} // namespace

QList<ShortcutEntry> collectShortcuts(const QWidget* window)
{
    QList<ShortcutEntry> entries;
    if (!window)
        return entries;
    // Menus in menu-bar order; actions within a menu keep the order the menu shows them in.
    QList<const QAction*> ordered;
    const auto addMenu = [&](const auto& self, const QMenu* menu) -> void {
        for (const QAction* action : menu->actions()) {
            if (action->menu())
                self(self, action->menu());
            else if (!ordered.contains(action))
                ordered << action;
        }
    };
    for (const QMenuBar* bar : window->findChildren<QMenuBar*>())
        for (const QAction* action : bar->actions())
            if (action->menu())
                addMenu(addMenu, action->menu());
    for (const QAction* action : window->findChildren<QAction*>())
        if (!ordered.contains(action))
            ordered << action;
    for (const QAction* action : ordered) {
        if (action->shortcuts().isEmpty() || action->text().isEmpty())
            continue;
        QStringList keys;
        for (const QKeySequence& key : action->shortcuts())
            keys << key.toString(QKeySequence::NativeText);
        entries.append({menuPath(action), withoutMnemonic(action->text()), keys});
    }
    return entries;
}

QString validationFigure()
{
    return QString::fromStdString(core::validationSummaryText(core::builtinValidationSummary()));
}

QString guideHtml()
{
    QFile file(QStringLiteral(":/help/guide.html"));
    QString html = file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll())
                                                  : tr("<p>The guide is missing from this "
                                                       "build.</p>{{validation}}");
    html.replace(QStringLiteral("{{version}}"), QStringLiteral(ARCHIPELAGO_VERSION));
    html.replace(QStringLiteral("{{validation}}"), validationTableHtml());
    return html;
}

QString aboutHtml()
{
    return tr("<h2>Archipelago %1</h2>"
              "<p>A design-space explorer for training large language models across several "
              "datacenters: topology, parallelism layout and pipeline schedule in, iteration "
              "time, bubble, memory and network cost out.</p>"
              "<p><b>Model error on published runs:</b> %2 (Help › Guide explains it).</p>"
              "<p>Built with Qt %3, running on Qt %4.</p>"
              "<p><b>Credits.</b> Qt (LGPL v3), QCustomPlot (GPL v3), nlohmann/json (MIT), "
              "Boost.Graph (Boost Software License 1.0), oneTBB (Apache 2.0). Measured "
              "iteration times from the papers and benchmark reports listed in the Guide.</p>")
        .arg(QStringLiteral(ARCHIPELAGO_VERSION), validationFigure().toHtmlEscaped(),
             QStringLiteral(QT_VERSION_STR), QString::fromLatin1(qVersion()));
}

QDialog* showAboutDialog(QWidget* window)
{
    return showOnce(window, QStringLiteral("AboutDialog"), [window] {
        auto* dialog = new QDialog(window);
        dialog->setWindowTitle(tr("About Archipelago"));
        auto* layout = new QVBoxLayout(dialog);
        auto* label = new QLabel(aboutHtml(), dialog);
        label->setObjectName(QStringLiteral("AboutText"));
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextBrowserInteraction);
        label->setMinimumWidth(460);
        layout->addWidget(label);
        return dialog;
    });
}

QDialog* showShortcutsDialog(QWidget* window)
{
    QDialog* shown = showOnce(window, QStringLiteral("ShortcutsDialog"), [window] {
        auto* dialog = new QDialog(window);
        dialog->setWindowTitle(tr("Keyboard Shortcuts"));
        auto* layout = new QVBoxLayout(dialog);
        auto* tree = new QTreeWidget(dialog);
        tree->setObjectName(QStringLiteral("ShortcutsTable"));
        tree->setHeaderLabels({tr("Action"), tr("Shortcut")});
        tree->setRootIsDecorated(false);
        tree->setAlternatingRowColors(true);
        tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
        tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
        tree->header()->setStretchLastSection(false);
        layout->addWidget(tree);
        auto* note = new QLabel(tr("On the canvas also: Shift-drag or right-drag between two "
                                   "datacenters to connect them, Space-drag or middle-drag to "
                                   "pan, Ctrl+wheel to zoom, Esc to leave Connect mode."),
                                dialog);
        note->setWordWrap(true);
        layout->addWidget(note);
        dialog->resize(520, 640);
        return dialog;
    });
    // Refilled on every show: the actions, not a copy, are the truth.
    auto* tree = shown->findChild<QTreeWidget*>(QStringLiteral("ShortcutsTable"));
    tree->clear();
    QString lastMenu;
    for (const ShortcutEntry& entry : collectShortcuts(window)) {
        const QString menu = entry.menu.isEmpty() ? tr("Other") : entry.menu;
        if (menu != lastMenu) {
            auto* heading = new QTreeWidgetItem(tree, {menu});
            QFont bold = heading->font(0);
            bold.setBold(true);
            heading->setFont(0, bold);
            heading->setFirstColumnSpanned(true);
            lastMenu = menu;
        }
        new QTreeWidgetItem(
            tree, {QStringLiteral("    ") + entry.action, entry.keys.join(QStringLiteral(", "))});
    }
    return shown;
}

QDialog* showGuideDialog(QWidget* window)
{
    return showOnce(window, QStringLiteral("GuideDialog"), [window] {
        auto* dialog = new QDialog(window);
        dialog->setWindowTitle(tr("Archipelago Guide"));
        auto* layout = new QVBoxLayout(dialog);
        auto* browser = new QTextBrowser(dialog);
        browser->setObjectName(QStringLiteral("GuideText"));
        browser->setOpenExternalLinks(true);
        browser->setHtml(guideHtml());
        layout->addWidget(browser);
        dialog->resize(720, 760);
        return dialog;
    });
}

QMenu* addHelpMenu(QMainWindow* window)
{
    QMenu* help = window->menuBar()->addMenu(tr("&Help"));
    help->setObjectName(QStringLiteral("HelpMenu"));
    QAction* guide = help->addAction(tr("&Guide"));
    guide->setObjectName(QStringLiteral("HelpGuide"));
    guide->setShortcuts({QKeySequence(Qt::Key_F1)});
    guide->setStatusTip(tr("What the cost model computes and its error on published runs"));
    QObject::connect(guide, &QAction::triggered, window, [window] { showGuideDialog(window); });
    QAction* shortcuts = help->addAction(tr("&Keyboard Shortcuts"));
    shortcuts->setObjectName(QStringLiteral("HelpShortcuts"));
    shortcuts->setStatusTip(tr("Every keyboard shortcut of the window"));
    QObject::connect(shortcuts, &QAction::triggered, window,
                     [window] { showShortcutsDialog(window); });
    help->addSeparator();
    QAction* about = help->addAction(tr("&About Archipelago"));
    about->setObjectName(QStringLiteral("HelpAbout"));
    about->setMenuRole(QAction::AboutRole);
    about->setStatusTip(tr("Version, Qt, credits and the model's validation error"));
    QObject::connect(about, &QAction::triggered, window, [window] { showAboutDialog(window); });
    return help;
}

} // namespace archipelago::app
