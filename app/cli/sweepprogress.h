// The progress line of `archipelago-cli sweep` on stderr, only when stderr is a terminal: the
// points considered of this run's total, those evaluated, points per second and the time left,
// rewritten in place with \r between batches (SweepOptions::progress) and cleared at the end,
// so that a log file or a pipe never receives it.
#pragma once

#include "explore/sweep.h"

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace archipelago::cli {

bool stderrIsTerminal();

// The points of index `index` modulo `count` among `total`: what a shard considers.
std::uint64_t shardPoints(std::uint64_t total, int index, int count);

// "1,024 / 7,776 points (13%), 180 evaluated, 2,410 points/s, 0:03 left"; `total` is this
// run's (its shard's) point count.
std::string formatProgressLine(std::uint64_t considered, std::uint64_t total,
                               std::uint64_t evaluated, double elapsedS);

class ProgressLine
{
public:
    // Writes nothing when `enabled` is false.
    ProgressLine(std::ostream& out, bool enabled, int shardIndex, int shardCount);
    ~ProgressLine();
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    void update(const core::SweepProgress& progress);
    // Blanks the line and returns the cursor to its start.
    void clear();

private:
    std::ostream& m_out;
    bool m_enabled;
    int m_shardIndex;
    int m_shardCount;
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_lastDrawn;
    std::size_t m_width = 0; // of the line on the terminal
};

} // namespace archipelago::cli
