// Design edits offered from the Edit menu before the property editors of issue 5 exist:
// pipeline-parallel degree, pipeline schedule and activation recompute. Each is one undo
// command on the document; the menus show the current value and offer only valid choices.
#pragma once

#include <QObject>

class QActionGroup;
class QMenu;

namespace archipelago::app {

class Document;

class QuickEdits : public QObject
{
    Q_OBJECT

public:
    QuickEdits(Document* document, QMenu* editMenu, QObject* parent = nullptr);

    // Refreshes the checked entries (call after each document change).
    void update();

private:
    void fillPipelineMenu();
    void setSchedule(int kind);
    void setRecompute(int recompute);

    Document* m_document;
    QMenu* m_pipelineMenu = nullptr;
    QActionGroup* m_scheduleGroup = nullptr;
    QActionGroup* m_recomputeGroup = nullptr;
};

} // namespace archipelago::app
