// The progress line of `archipelago-cli sweep` on stderr: the points considered of this run's
// total, those evaluated, points per second and the time left. On a terminal it is rewritten in
// place with \r between batches (SweepOptions::progress) and cleared at the end; a log file or a
// pipe receives nothing, unless `--progress` asks for a plain line every 30 s (a batch job's log).
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
    enum class Mode
    {
        Off,      // nothing (stderr is a file or a pipe, and --progress was not asked for)
        Terminal, // one line rewritten in place
        Log       // `--progress` into a log: a full line every kLogInterval
    };
    ProgressLine(std::ostream& out, Mode mode, int shardIndex, int shardCount);
    ~ProgressLine();
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    void update(const core::SweepProgress& progress);
    // Blanks the line and returns the cursor to its start.
    void clear();

private:
    std::ostream& m_out;
    Mode m_mode;
    int m_shardIndex;
    int m_shardCount;
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_lastDrawn;
    std::size_t m_width = 0; // of the line on the terminal
};

} // namespace archipelago::cli
