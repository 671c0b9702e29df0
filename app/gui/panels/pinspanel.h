// The list of pinned design points (a dock): each pin with its colour, name (editable in place)
// and headline figures; Pin, Restore, Rename and Remove as buttons and in a context menu. Shows
// data and emits intents; the main window turns them into undo commands.
#pragma once

#include <QColor>
#include <QList>
#include <QWidget>

class QListWidget;
class QListWidgetItem;
class QToolButton;

namespace archipelago::app {

class PinsPanel : public QWidget
{
    Q_OBJECT

public:
    struct Row
    {
        QString name;
        QColor color;
        QString summary; // "1.23 s · MFU 41 %", or empty while evaluating
    };

    explicit PinsPanel(QWidget* parent = nullptr);

    void setRows(const QList<Row>& rows);
    int currentIndex() const;
    QListWidget* list() const { return m_list; }

signals:
    void pinRequested();
    void restoreRequested(int index);
    void renameRequested(int index, const QString& name);
    void removeRequested(int index);

private:
    void showMenu(const QPoint& pos);
    void onItemChanged(QListWidgetItem* item);
    void updateButtons();

    QListWidget* m_list = nullptr;
    QToolButton* m_restore = nullptr;
    QToolButton* m_rename = nullptr;
    QToolButton* m_remove = nullptr;
    bool m_loading = false;
};

} // namespace archipelago::app
