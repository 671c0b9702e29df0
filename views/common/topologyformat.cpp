#include "common/topologyformat.h"

#include <algorithm>
#include <cmath>

namespace archipelago::views {

namespace {

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

QString formatPodShape(const core::Pod& pod)
{
    return QStringLiteral("%1 × %2 × %3-GPU domains")
        .arg(formatCount(pod.count), formatCount(pod.domainsPerPod),
             formatCount(pod.gpusPerDomain));
}

QString formatLinkRate(double gbps)
{
    if (gbps >= 1000.0)
        return trimmed(gbps / 1000.0, 2) + QLatin1Char('T');
    return trimmed(gbps, 1) + QLatin1Char('G');
}

QString formatBandwidth(double gbps)
{
    if (gbps >= 1000.0)
        return trimmed(gbps / 1000.0, gbps >= 100000.0 ? 0 : 1) + QStringLiteral(" Tb/s");
    return trimmed(gbps, 1) + QStringLiteral(" Gb/s");
}

double linkCapacityGbps(const core::DciLink& link)
{
    return link.wavelengths * link.gbpsPerWavelength;
}

QString formatLinkCapacity(const core::DciLink& link)
{
    return QStringLiteral("%1 × %2 = %3")
        .arg(formatCount(link.wavelengths), formatLinkRate(link.gbpsPerWavelength),
             formatBandwidth(linkCapacityGbps(link)));
}

QString formatDistance(double km)
{
    if (km >= 100.0)
        return formatCount(std::llround(km)) + QStringLiteral(" km");
    return trimmed(km, km >= 10.0 ? 0 : 1) + QStringLiteral(" km");
}

QString formatFabric(const core::Fabric& fabric)
{
    QString kind;
    switch (fabric.kind) {
    case core::FabricKind::Clos:
        kind = QStringLiteral("Clos");
        break;
    case core::FabricKind::RailOptimized:
        kind = QStringLiteral("rail-optimized");
        break;
    case core::FabricKind::RailOnly:
        kind = QStringLiteral("rail-only");
        break;
    }
    QString text = kind;
    if (fabric.kind != core::FabricKind::RailOnly)
        text += QStringLiteral(" · %1-tier").arg(fabric.tiers);
    const double over = std::max(fabric.leafOversubscription, fabric.spineOversubscription);
    if (over > 1.0)
        text += QStringLiteral(" · %1:1").arg(trimmed(over, 1));
    return text;
}

QString formatDuration(double seconds)
{
    const double abs = std::fabs(seconds);
    if (abs >= 1.0)
        return trimmed(seconds, 2) + QStringLiteral(" s");
    if (abs >= 1e-3)
        return trimmed(seconds * 1e3, abs >= 0.1 ? 0 : 1) + QStringLiteral(" ms");
    return trimmed(seconds * 1e6, 0) + QStringLiteral(" µs");
}

QColor linkCapacityColor(double gbps)
{
    // 1 Tb/s -> hue 20 (orange-red), 100 Tb/s -> hue 200 (blue-teal).
    const double t = std::clamp(std::log10(std::max(gbps, 1.0) / 1000.0) / 2.0, 0.0, 1.0);
    return QColor::fromHslF(static_cast<float>((20.0 + 180.0 * t) / 360.0), 0.62f, 0.50f);
}

double linkCapacityWidth(double gbps)
{
    return std::clamp(1.5 + 0.9 * std::log2(1.0 + gbps / 1000.0), 1.5, 7.0);
}

QColor mixColors(const QColor& a, const QColor& b, double t)
{
    const auto mix = [t](float x, float y) { return static_cast<float>(x + (y - x) * t); };
    return QColor::fromRgbF(mix(a.redF(), b.redF()), mix(a.greenF(), b.greenF()),
                            mix(a.blueF(), b.blueF()), mix(a.alphaF(), b.alphaF()));
}

} // namespace archipelago::views
