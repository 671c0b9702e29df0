#include "model/diagnostic.h"

#include <cstdint>
#include <cstdio>

namespace archipelago::core {

namespace {

// Length of the UTF-8 sequence at `text[i]` and its code point, or 0 when the bytes there are
// not well-formed UTF-8 (overlong forms, surrogates and values past U+10FFFF included).
std::size_t decodeUtf8(std::string_view text, std::size_t i, std::uint32_t& cp)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
    const unsigned char b0 = byte(0);
    std::size_t length = 0;
    std::uint32_t min = 0;
    if (b0 < 0x80) {
        cp = b0;
        return 1;
    }
    if ((b0 & 0xe0) == 0xc0) {
        length = 2;
        cp = b0 & 0x1fu;
        min = 0x80;
    } else if ((b0 & 0xf0) == 0xe0) {
        length = 3;
        cp = b0 & 0x0fu;
        min = 0x800;
    } else if ((b0 & 0xf8) == 0xf0) {
        length = 4;
        cp = b0 & 0x07u;
        min = 0x10000;
    } else {
        return 0;
    }
    if (i + length > text.size())
        return 0;
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(k) & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (byte(k) & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return length;
}

bool unsafe(std::uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

} // namespace

std::string displayText(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    char buf[8];
    for (std::size_t i = 0; i < text.size();) {
        std::uint32_t cp = 0;
        const std::size_t length = decodeUtf8(text, i, cp);
        if (length == 0) {
            std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(text[i]));
            out += buf;
            ++i;
            continue;
        }
        if (unsafe(cp)) {
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
            out += buf;
        } else {
            out.append(text.substr(i, length));
        }
        i += length;
    }
    return out;
}

std::string Diagnostic::toString() const
{
    std::string out;
    if (!file.empty())
        out += displayText(file) + ": ";
    if (severity == Severity::Warning)
        out += "warning: ";
    if (!pointer.empty())
        out += displayText(pointer) + ": ";
    return out + displayText(message);
}

} // namespace archipelago::core
