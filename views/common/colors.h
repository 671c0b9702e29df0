// The colours the views share: one qualitative colour per pipeline stage (the layout view, the
// topology canvas and the plots, so that "stage 3" has the same colour everywhere), a DCI
// link's colour and pen width by its capacity (the canvas and the layout view), and blending.
#pragma once

#include <QColor>
#include <QPalette>

#include <array>

namespace archipelago::views {

// Tableau 10 (Stone 2016, "Tableau 10", tableau.com/blog/colors-upgrade-tableau-10): ten hues
// of similar weight that stay apart for common colour-vision deficiencies and read on light and
// dark backgrounds. Stages beyond ten repeat the hues, alternately darker and lighter.
inline QColor stageColor(int stage)
{
    static constexpr std::array<QRgb, 10> kHues{0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                                0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
    const int n = static_cast<int>(kHues.size());
    const int index = ((stage % n) + n) % n;
    const QColor base = QColor::fromRgb(kHues[static_cast<std::size_t>(index)]);
    const int round = (stage < 0 ? 0 : stage / n) % 3;
    return round == 0 ? base : round == 1 ? base.darker(135) : base.lighter(125);
}

// A translucent fill of the stage colour for large areas, readable under text in either
// palette (text stays QPalette::Text).
inline QColor stageFill(int stage, const QPalette& palette)
{
    QColor fill = stageColor(stage);
    const bool dark = palette.color(QPalette::Base).lightnessF() < 0.5;
    fill.setAlphaF(dark ? 0.38f : 0.30f);
    return fill;
}

// Colour and pen width of a DCI link by capacity, on a log scale from 1 Tb/s (warm: likely the
// bottleneck) to 100 Tb/s (cool). Mid lightness so that it reads on light and dark palettes.
QColor linkCapacityColor(double gbps);
double linkCapacityWidth(double gbps);
// `a` blended towards `b` by t in [0, 1].
QColor mixColors(const QColor& a, const QColor& b, double t);

// Design points, in the window's plots and table and in the report (the classic Tableau 10,
// matplotlib's "tab10"): the current design in its blue, pins in turn from the rest, and the
// Explore panel's preview in the grey no pin takes.
inline constexpr std::array<const char*, 8> kPinPalette{"#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                                        "#8c564b", "#e377c2", "#17becf", "#bcbd22"};
inline QColor currentDesignColor()
{
    return QColor(0x1f, 0x77, 0xb4);
}
inline QColor previewDesignColor()
{
    return QColor(0x7f, 0x7f, 0x7f);
}
// The pin palette's colour for the index-th pin, wrapping around.
QColor pinPaletteColor(int index);

} // namespace archipelago::views
