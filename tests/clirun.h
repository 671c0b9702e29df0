// The command line run in the test's own process (cli::run), its exit code and both streams;
// and a preset's path. For the tests of the CLI's behaviour.
#pragma once

#include "cli.h"

#include <sstream>
#include <string>
#include <vector>

namespace archipelago::tests {

struct CliRun
{
    int exitCode = -1;
    std::string out;
    std::string err;
};

inline CliRun runCli(const std::vector<std::string>& args)
{
    std::ostringstream out, err;
    CliRun run;
    run.exitCode = cli::run(args, out, err);
    run.out = out.str();
    run.err = err.str();
    return run;
}

inline std::string presetPath(const char* name)
{
    // Appended, not operator+: GCC 12 reports a false -Warray-bounds in the inlined
    // std::string concatenation once the tests share a precompiled header.
    std::string path = ARCHIPELAGO_SOURCE_DIR "/presets/";
    path += name;
    return path;
}

} // namespace archipelago::tests
