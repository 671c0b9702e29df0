// Integer products and double-to-integer conversions that cannot overflow. Signed overflow and
// converting a double outside the target's range are undefined behaviour (C++20 [expr.pre]/4,
// [conv.fpint]/1): every product of degrees and every count computed from a double goes through
// here, so that an extreme figure becomes a reported error or a bounded value, never UB.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>

namespace archipelago::core {

// a * b, or nothing when the product does not fit.
inline std::optional<std::int64_t> checkedMul(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

// The product of all factors, or nothing when any partial product does not fit.
template <std::integral... Ints>
std::optional<std::int64_t> checkedProduct(std::int64_t first, Ints... rest)
{
    std::optional<std::int64_t> r = first;
    ((r = r ? checkedMul(*r, static_cast<std::int64_t>(rest)) : std::nullopt), ...);
    return r;
}

// True when static_cast<Int>(v) is defined: v is a number whose truncation fits Int. The
// bounds are powers of two and so exact in a double; NaN fails both comparisons.
template <std::integral Int> constexpr bool fitsInteger(double v)
{
    constexpr double upper = static_cast<double>(std::numeric_limits<Int>::max() / 2 + 1) * 2.0;
    constexpr double lower = static_cast<double>(std::numeric_limits<Int>::min());
    return v >= lower && v < upper;
}

// static_cast<Int>(v) when that is defined, else nothing.
template <std::integral Int> std::optional<Int> toInteger(double v)
{
    if (!fitsInteger<Int>(v))
        return std::nullopt;
    return static_cast<Int>(v);
}

// static_cast<Int>(v) clamped to Int's range; NaN gives 0. For figures that only label or
// bound something (a name, a loop limit), where a saturated value is still truthful enough.
template <std::integral Int> Int saturatingCast(double v)
{
    if (std::isnan(v))
        return 0;
    if (fitsInteger<Int>(v))
        return static_cast<Int>(v);
    return v < 0.0 ? std::numeric_limits<Int>::min() : std::numeric_limits<Int>::max();
}

} // namespace archipelago::core
