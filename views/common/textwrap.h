// Text in a narrow place: at most two lines, wrapped at a space, the rest elided. Field names in
// the property editor and design-point names in the comparison table's headers.
#pragma once

#include <QFontMetrics>
#include <QString>
#include <QStringList>

namespace archipelago::views {

// `text` in at most two lines of `width` pixels: whole on one when it fits; else the words that
// fit on the first (the first word elided when even it does not) and the rest on the second,
// elided with `restMode`.
QStringList twoLines(const QString& text, const QFontMetrics& metrics, int width,
                     Qt::TextElideMode restMode = Qt::ElideRight);

} // namespace archipelago::views
