// Paints the parts of the layout view (columns, stage bands, DCI crossings, the DP-crossing
// footer, the boundary being dragged) from a LayoutGeometry, and words the band labels:
// "stage 3 · layers 24–31 · 8 TP × 128 DP = 1,024 GPUs".
#pragma once

#include "layout/layoutviewgeometry.h"

#include "model/evaluation.h"
#include "model/scenario.h"

#include <QCoreApplication>
#include <QFont>
#include <QPalette>
#include <QStringList>

#include <functional>
#include <vector>

class QPainter;

namespace archipelago::views {

class LayoutViewPainter
{
    Q_DECLARE_TR_FUNCTIONS(LayoutViewPainter)

public:
    // `evaluation` may be null (no timing overlay); all references must outlive the painter.
    LayoutViewPainter(const core::Scenario& scenario, const core::Evaluation* evaluation,
                      const QPalette& palette, const QFont& font);

    void paintAxis(QPainter& p, const LayoutGeometry& g) const;
    void paintColumn(QPainter& p, const LayoutGeometry& g, const LayoutColumn& column) const;
    // Returns the first line of the label drawn in the band, or "" when it is too thin for one.
    QString paintBand(QPainter& p, const LayoutBand& band, bool ghost) const;
    // Every band but `skip` (-1: none), and labels for the bands too thin for their own (some
    // of them, at an interval, like an axis). Returns the labels drawn, one per labelled band.
    QStringList paintBands(QPainter& p, const LayoutGeometry& g, int skip = -1) const;
    // Draws the arrow; with `withLabel`, also its label where it covers no band and no label in
    // `taken` (to which it adds its own).
    void paintCrossing(QPainter& p, const LayoutGeometry& g, const LayoutCrossing& crossing,
                       bool withLabel, std::vector<QRectF>& taken) const;
    void paintFooter(QPainter& p, const LayoutGeometry& g) const;
    void paintBoundaryHandle(QPainter& p, const LayoutGeometry& g, int boundary) const;

    QString bandLabel(const LayoutBand& band) const;
    // Scale-up domains the band occupies, and the evaluation overlay (busy time) when present.
    QString bandDetail(const LayoutBand& band) const;
    // The label lines to draw in at most `maxLines` lines; `fits(line, bold)` measures one.
    QStringList bandLines(const LayoutBand& band, int maxLines,
                          const std::function<bool(const QString&, bool)>& fits) const;

private:
    QStringList paintThinLabels(QPainter& p, const LayoutGeometry& g,
                                const std::vector<std::size_t>& thin) const;
    QPalette palette() const { return m_palette; }
    QFont font() const { return m_font; }

    const core::Scenario& m_scenario;
    const core::Evaluation* m_evaluation;
    QPalette m_palette;
    QFont m_font;
};

} // namespace archipelago::views
