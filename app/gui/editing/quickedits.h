// Design edits offered from the Edit menu: pipeline-parallel degree, pipeline schedule and
// activation recompute. Each goes through the EditController like every other edit (validated,
// placement repaired, one undo step, refused with a reason); the menus show the current value
// and the pipeline menu offers only degrees the controller would accept.
#pragma once

#include <QObject>

class QActionGroup;
class QMenu;

namespace archipelago::app {

class EditController;

class QuickEdits : public QObject
{
    Q_OBJECT

public:
    QuickEdits(EditController* edits, QMenu* editMenu, QObject* parent = nullptr);

    // Refreshes the checked entries (call after each document change).
    void update();

private:
    void fillPipelineMenu();
    void setSchedule(int kind);
    void setRecompute(int recompute);

    EditController* m_edits;
    QMenu* m_pipelineMenu = nullptr;
    QActionGroup* m_scheduleGroup = nullptr;
    QActionGroup* m_recomputeGroup = nullptr;
};

} // namespace archipelago::app
