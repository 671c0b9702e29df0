// The key figures of one Evaluation: iteration time and its breakdown, MFU, bubble ratio,
// memory peak against HBM, network capex, time to train, and the model's warnings. Shows
// what core computed; computes nothing itself.
#pragma once

#include "model/evaluation.h"

#include <QWidget>

class QFormLayout;
class QLabel;
class QListWidget;

namespace archipelago::views {

// Whether a design fits in HBM: with room, only with little allocator fragmentation (the
// memory-headroom warning), or not at all. The Evaluation dock and the status bar say it alike.
enum class MemoryFit
{
    Fits,
    Tight,
    OutOfMemory
};
MemoryFit memoryFit(const core::Evaluation& e);

class EvaluationSummary : public QWidget
{
    Q_OBJECT

public:
    explicit EvaluationSummary(QWidget* parent = nullptr);

    void setEvaluation(const core::Evaluation& evaluation);
    // An evaluation is running: the figures shown belong to the previous design point.
    void setPending(bool pending);
    void clear();

    // For tests and tools: the text shown for a figure ("Iteration time", "MFU", ...).
    QString figure(const QString& name) const;
    QString figureToolTip(const QString& name) const;
    int warningCount() const;

private:
    QLabel* addFigure(QFormLayout* form, const QString& name);
    void setBreakdown(const core::Evaluation& evaluation);

    QLabel* m_state = nullptr;
    QList<QPair<QString, QLabel*>> m_figures;
    QLabel* m_iteration = nullptr;
    QLabel* m_tokens = nullptr;
    QLabel* m_mfu = nullptr;
    QLabel* m_bubble = nullptr;
    QLabel* m_memory = nullptr;
    QLabel* m_capex = nullptr;
    QLabel* m_power = nullptr;
    QLabel* m_train = nullptr;
    QLabel* m_effective = nullptr; // with interruptions, checkpoints and restarts
    QLabel* m_runCost = nullptr;   // the effective run's cost
    QLabel* m_sync = nullptr;      // how the datacenters stay in step
    QLabel* m_gpus = nullptr;
    QLabel* m_calibration = nullptr; // the scenario's calibration, or the built-in one
    QFormLayout* m_breakdown = nullptr;
    QListWidget* m_warnings = nullptr;
    int m_warningCount = 0;
    bool m_hasEvaluation = false;
};

} // namespace archipelago::views
