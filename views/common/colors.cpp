#include "common/colors.h"

#include <algorithm>
#include <cmath>

namespace archipelago::views {

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

QColor pinPaletteColor(int index)
{
    const auto n = static_cast<int>(kPinPalette.size());
    return QColor(QLatin1String(kPinPalette[static_cast<std::size_t>(((index % n) + n) % n)]));
}

} // namespace archipelago::views
