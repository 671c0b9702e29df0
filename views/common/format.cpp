#include "common/format.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace archipelago::views {

namespace {

// A fixed locale keeps screenshots, tests and reports identical on every machine.
const QLocale& numberLocale()
{
    static const QLocale locale(QLocale::English, QLocale::UnitedStates);
    return locale;
}

const QString kNotANumber = QStringLiteral("—");

// Three significant digits, grouped: 1.23, 12.3, 123, 1,234.
QString significant(double value)
{
    const double magnitude = std::fabs(value);
    const int decimals = magnitude >= 100.0 ? 0 : magnitude >= 10.0 ? 1 : 2;
    return numberLocale().toString(value, 'f', decimals);
}

QString scaled(double value, const char* const* prefixes, int count, double step,
               const QString& unit)
{
    if (!std::isfinite(value))
        return kNotANumber;
    int index = 0;
    double v = value;
    while (std::fabs(v) >= step && index + 1 < count) {
        v /= step;
        ++index;
    }
    return significant(v) + QLatin1Char(' ') + QString::fromUtf8(prefixes[index]) + unit;
}

// Up to `decimals` decimals, trailing zeros dropped: 25.60 -> "25.6", 12.0 -> "12".
QString trimmed(double value, int decimals)
{
    QString s = QString::number(value, 'f', decimals);
    if (s.contains(QLatin1Char('.'))) {
        while (s.endsWith(QLatin1Char('0')))
            s.chop(1);
        if (s.endsWith(QLatin1Char('.')))
            s.chop(1);
    }
    return s;
}

} // namespace

QString formatCount(std::int64_t n)
{
    // Group separators are fixed (not the system locale) so that labels read the same in
    // screenshots and reports everywhere.
    const QString digits = QString::number(n < 0 ? -n : n);
    QString out;
    for (qsizetype i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += QLatin1Char(',');
        out += digits[i];
    }
    return n < 0 ? QLatin1Char('-') + out : out;
}

QString formatGpus(std::int64_t n)
{
    return formatCount(n) + (n == 1 ? QStringLiteral(" GPU") : QStringLiteral(" GPUs"));
}

QString formatNumber(double value, int decimals)
{
    if (!std::isfinite(value))
        return kNotANumber;
    return numberLocale().toString(value, 'f', decimals);
}

QString formatWholeNumber(double value)
{
    // 2^63 is exact in a double; NaN fails the comparison.
    const double rounded = std::round(value);
    if (!(std::fabs(rounded) < 0x1p63))
        return kNotANumber;
    return formatCount(static_cast<std::int64_t>(rounded));
}

QString formatSeconds(double seconds)
{
    if (!std::isfinite(seconds))
        return kNotANumber;
    const double magnitude = std::fabs(seconds);
    if (magnitude == 0.0)
        return QStringLiteral("0 s");
    if (magnitude < 1e-3)
        return significant(seconds * 1e6) + QStringLiteral(" µs");
    if (magnitude < 1.0)
        return significant(seconds * 1e3) + QStringLiteral(" ms");
    if (magnitude < 3600.0)
        return significant(seconds) + QStringLiteral(" s");
    return formatTimeSpan(seconds);
}

QString formatTimeSpan(double seconds)
{
    if (!std::isfinite(seconds))
        return kNotANumber;
    const double magnitude = std::fabs(seconds);
    if (magnitude < 3600.0)
        return formatSeconds(seconds);
    if (magnitude < 2.0 * 86400.0)
        return significant(seconds / 3600.0) + QStringLiteral(" h");
    return significant(seconds / 86400.0) + QStringLiteral(" days");
}

QString formatGpuHours(double hours)
{
    if (!std::isfinite(hours))
        return kNotANumber;
    const double magnitude = std::fabs(hours);
    if (magnitude >= 1000.0)
        return formatWholeNumber(hours);
    if (magnitude == 0.0)
        return QStringLiteral("0");
    // Three significant figures: 465, 46.5, 4.65, 0.465, 0.0465.
    const int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
    const int decimals = std::clamp(2 - exponent, 0, 9);
    return numberLocale().toString(hours, 'f', decimals);
}

QString formatPercent(double fraction, int decimals)
{
    if (!std::isfinite(fraction))
        return kNotANumber;
    return numberLocale().toString(fraction * 100.0, 'f', decimals) + QStringLiteral(" %");
}

QString formatUsd(double usd)
{
    static const char* const prefixes[] = {"", "k", "M", "B"};
    if (!std::isfinite(usd))
        return kNotANumber;
    return QLatin1Char('$') + scaled(usd, prefixes, 4, 1000.0, QString()).trimmed();
}

QString formatPower(double watts)
{
    static const char* const prefixes[] = {"", "k", "M", "G"};
    return scaled(watts, prefixes, 4, 1000.0, QStringLiteral("W"));
}

QString formatGib(double gib)
{
    if (!std::isfinite(gib))
        return kNotANumber;
    return numberLocale().toString(gib, 'f', 1) + QStringLiteral(" GiB");
}

QString formatGbps(double gbps)
{
    static const char* const prefixes[] = {"G", "T", "P"};
    return scaled(gbps, prefixes, 3, 1000.0, QStringLiteral("b/s"));
}

QString formatLinkRate(double gbps)
{
    if (gbps >= 1000.0)
        return trimmed(gbps / 1000.0, 2) + QLatin1Char('T');
    return trimmed(gbps, 1) + QLatin1Char('G');
}

QString formatKm(double km)
{
    if (!std::isfinite(km))
        return kNotANumber;
    const int decimals = km >= 10.0 || km == std::floor(km) ? 0 : 1;
    return numberLocale().toString(km, 'f', decimals) + QStringLiteral(" km");
}

QString bubbleRatioName()
{
    return QStringLiteral("Bubble ratio");
}

QString bubbleRatioToolTip()
{
    return QStringLiteral(
        "Bubble ratio = mean over pipeline stages of (idle time ÷ pipeline makespan), from the "
        "simulated schedule (ARCHITECTURE.md). The same figure in the summary, the status bar, "
        "the plots, the comparison table and the timeline.");
}

QString formatBubbleRatio(double fraction)
{
    return formatPercent(fraction, 1);
}

QString idleOverComputeName()
{
    return QStringLiteral("Idle ÷ compute (simulated)");
}

QString idleOverComputeToolTip()
{
    return QStringLiteral(
        "Pipeline idle time ÷ compute time, from the simulated schedule (transfers, uneven "
        "stages and the schedule's own order included). It equals Megatron's (p−1)/m "
        "(Narayanan et al. 2021, section 2.2.1) only for uniform stages with free transfers; "
        "the ideal (p−1)/m, or (p−1)/(v·m) when interleaved, is drawn as a reference marked "
        "\"ideal\".");
}

} // namespace archipelago::views
