#include "common/textwrap.h"

namespace archipelago::views {

QStringList twoLines(const QString& text, const QFontMetrics& metrics, int width,
                     Qt::TextElideMode restMode)
{
    if (metrics.horizontalAdvance(text) <= width)
        return {text};
    const QStringList words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QString first;
    qsizetype taken = 0;
    for (; taken < words.size(); ++taken) {
        const QString longer =
            first.isEmpty() ? words[taken] : first + QLatin1Char(' ') + words[taken];
        if (!first.isEmpty() && metrics.horizontalAdvance(longer) > width)
            break;
        first = longer;
    }
    first = metrics.elidedText(first, Qt::ElideRight, width);
    const QString rest = words.mid(taken).join(QLatin1Char(' '));
    if (rest.isEmpty())
        return {first};
    return {first, metrics.elidedText(rest, restMode, width)};
}

} // namespace archipelago::views
