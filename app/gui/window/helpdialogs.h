// The Help menu: About (version, Qt, credits, the model's error on the published runs), Keyboard
// Shortcuts (generated from the window's QActions, so it lists what the keys really do) and the
// Guide to the model and its validation error (resources/guide.html, F1). The error figures come
// from core::builtinValidationSummary(): the published runs embedded at build time, evaluated
// by the same code as `archipelago-cli validate`, never typed in.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

class QDialog;
class QMainWindow;
class QMenu;
class QWidget;

namespace archipelago::app {

struct ShortcutEntry
{
    QString menu;     // "Edit", "View › Theme", or "" for an action in no menu
    QString action;   // the action's text without its mnemonic
    QStringList keys; // native text, e.g. "Ctrl+Z"
};

// Every action under `window` that has a shortcut, in menu order then by text.
QList<ShortcutEntry> collectShortcuts(const QWidget* window);

// "mean absolute error 3.6%, largest 9.6% over 22 published runs" (or why there is none).
QString validationFigure();
// The Guide's HTML with the version and the validation table filled in.
QString guideHtml();
// The About box's HTML.
QString aboutHtml();

// Adds Help with About, Keyboard Shortcuts and Guide (F1) to the window's menu bar.
QMenu* addHelpMenu(QMainWindow* window);

// The dialogs, non-modal, one of each per window (shown again and raised when open already).
QDialog* showAboutDialog(QWidget* window);
QDialog* showShortcutsDialog(QWidget* window);
QDialog* showGuideDialog(QWidget* window);

} // namespace archipelago::app
