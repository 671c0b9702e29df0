#include "sweepprogress.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

#if defined(_WIN32)
#include <io.h>
#else
#include <unistd.h>
#endif

namespace archipelago::cli {

namespace {

// Redrawing more often than this only costs terminal time.
constexpr std::chrono::milliseconds kRedrawInterval{100};
// A batch log gets a line at the start and then every 30 s: enough to see a job move.
constexpr std::chrono::seconds kLogInterval{30};

// 1234567 -> "1,234,567"
std::string grouped(std::uint64_t n)
{
    std::string digits = std::to_string(n);
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
        digits.insert(static_cast<std::size_t>(i), ",");
    return digits;
}

// 42 -> "0:42", 3725 -> "1:02:05"
std::string duration(double seconds)
{
    const auto s = static_cast<std::uint64_t>(seconds + 0.5);
    char buf[48];
    if (s >= 3600)
        std::snprintf(
            buf, sizeof buf, "%llu:%02llu:%02llu", static_cast<unsigned long long>(s / 3600),
            static_cast<unsigned long long>(s / 60 % 60), static_cast<unsigned long long>(s % 60));
    else
        std::snprintf(buf, sizeof buf, "%llu:%02llu", static_cast<unsigned long long>(s / 60),
                      static_cast<unsigned long long>(s % 60));
    return buf;
}

} // namespace

bool stderrIsTerminal()
{
#if defined(_WIN32)
    return _isatty(_fileno(stderr)) != 0;
#else
    return isatty(STDERR_FILENO) == 1;
#endif
}

std::uint64_t shardPoints(std::uint64_t total, int index, int count)
{
    const auto i = static_cast<std::uint64_t>(index);
    const auto n = static_cast<std::uint64_t>(count < 1 ? 1 : count);
    return total > i ? (total - i - 1) / n + 1 : 0;
}

std::string formatProgressLine(std::uint64_t considered, std::uint64_t total,
                               std::uint64_t evaluated, double elapsedS)
{
    std::string line = grouped(considered) + " / " + grouped(total) + " points";
    if (total > 0)
        line += " (" + std::to_string(considered * 100 / total) + "%)";
    line += ", " + grouped(evaluated) + " evaluated";
    if (elapsedS > 0.0 && considered > 0) {
        const double rate = static_cast<double>(considered) / elapsedS;
        line += ", " + grouped(static_cast<std::uint64_t>(rate + 0.5)) + " points/s, " +
                duration(static_cast<double>(total - std::min(total, considered)) / rate) + " left";
    }
    return line;
}

ProgressLine::ProgressLine(std::ostream& out, Mode mode, int shardIndex, int shardCount)
    : m_out(out)
    , m_mode(mode)
    , m_shardIndex(shardIndex)
    , m_shardCount(shardCount)
    , m_start(std::chrono::steady_clock::now())
    , m_lastDrawn(m_start - kLogInterval)
{}

ProgressLine::~ProgressLine()
{
    clear();
}

void ProgressLine::update(const core::SweepProgress& progress)
{
    if (m_mode == Mode::Off)
        return;
    const auto now = std::chrono::steady_clock::now();
    if (now - m_lastDrawn < (m_mode == Mode::Log ? kLogInterval : kRedrawInterval))
        return;
    m_lastDrawn = now;
    const std::string line =
        "sweep: " + formatProgressLine(progress.considered,
                                       shardPoints(progress.total, m_shardIndex, m_shardCount),
                                       progress.evaluated,
                                       std::chrono::duration<double>(now - m_start).count());
    if (m_mode == Mode::Log) {
        m_out << line << '\n' << std::flush;
        return;
    }
    // Pad over a longer previous line rather than rely on the terminal's erase sequences.
    const std::size_t pad = m_width > line.size() ? m_width - line.size() : 0;
    m_out << '\r' << line << std::string(pad, ' ') << std::flush;
    m_width = std::max(m_width, line.size());
}

void ProgressLine::clear()
{
    if (m_mode != Mode::Terminal || m_width == 0)
        return;
    m_out << '\r' << std::string(m_width, ' ') << '\r' << std::flush;
    m_width = 0;
}

} // namespace archipelago::cli
