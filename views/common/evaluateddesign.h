// A design point as the plots and the comparison table show it: a named, coloured snapshot of a
// scenario and the Evaluation the cost model returned for it. The app builds these from the
// current document and from its pins; the views only read them.
#pragma once

#include "model/evaluation.h"
#include "model/scenario.h"

#include <QColor>
#include <QList>
#include <QString>

namespace archipelago::views {

struct EvaluatedDesign
{
    QString name;
    QColor color;
    core::Scenario scenario;
    core::Evaluation evaluation;
};

// Pinned points first, then the current one: the order every plot and the table use.
inline QList<EvaluatedDesign> orderedDesignPoints(const QList<EvaluatedDesign>& pinned,
                                                  const EvaluatedDesign& current)
{
    QList<EvaluatedDesign> points = pinned;
    points.append(current);
    return points;
}

} // namespace archipelago::views
