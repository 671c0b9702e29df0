// archipelago-cli: every headless capability as a command (ARCHITECTURE.md section 6).
// Qt-free; main_cli.cpp only forwards argv here. Exit codes: 0 success, 1 invalid input,
// 2 usage error.
#pragma once

#include <iosfwd>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace archipelago::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalidInput = 1;
inline constexpr int kExitUsage = 2;

// args excludes the program name.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// One function per command (args exclude the command name).
int runCheck(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runEvaluate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runValidate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runSweep(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runMerge(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runLaunch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runImport(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runMeasure(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runCalibrate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

std::string usage();

// The value of the option args[i] (i steps onto it), or nullopt after writing on `err` why
// not: no value follows, or the option was given before (one value per option: a second one
// is a mistake in a script, not an override). `command` names the command ("launch").
std::optional<std::string> optionValue(const std::vector<std::string>& args, std::size_t& i,
                                       std::set<std::string>& given, std::string_view command,
                                       std::string_view usage, std::ostream& err);

} // namespace archipelago::cli
