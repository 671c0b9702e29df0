// What the cost model flags for the current design point (Evaluation::warnings), one row per
// warning with its stable code as tooltip, and the model's assumptions below them.
#pragma once

#include "model/evaluation.h"

#include <QListWidget>

namespace archipelago::app {

class WarningsPanel : public QListWidget
{
    Q_OBJECT

public:
    explicit WarningsPanel(QWidget* parent = nullptr);

    void setEvaluation(const core::Evaluation& evaluation);
    int warningCount() const { return m_warnings; }

signals:
    void warningCountChanged(int count);

private:
    int m_warnings = 0;
};

} // namespace archipelago::app
