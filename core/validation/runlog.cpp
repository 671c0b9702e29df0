#include "validation/runlog.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace archipelago::core {

namespace {

// Lines split on newlines and carriage returns (tqdm rewrites its bar with '\r'), without ANSI
// escape sequences (ESC '[' ... a letter).
std::vector<std::string> logLines(std::string_view text)
{
    std::vector<std::string> lines;
    std::string line;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\n' || c == '\r') {
            lines.push_back(std::move(line));
            line.clear();
        } else if (c == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
            i += 2;
            while (i < text.size() && !std::isalpha(static_cast<unsigned char>(text[i])))
                ++i;
        } else {
            line += c;
        }
    }
    lines.push_back(std::move(line));
    return lines;
}

// The number at `pos` after optional spaces (digits, a point, an exponent; thousands commas
// when `commas`), or NaN.
double numberAt(std::string_view line, std::size_t pos, bool commas = false)
{
    while (pos < line.size() && line[pos] == ' ')
        ++pos;
    std::string digits;
    for (; pos < line.size(); ++pos) {
        const char c = line[pos];
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' ||
            ((c == '+' || c == '-') && !digits.empty() &&
             (digits.back() == 'e' || digits.back() == 'E')))
            digits += c;
        else if (!(commas && c == ',' && !digits.empty()))
            break;
        if (digits.size() > 64)
            return std::nan("");
    }
    if (digits.empty())
        return std::nan("");
    double value = 0.0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || end != digits.data() + digits.size() || !std::isfinite(value))
        return std::nan("");
    return value;
}

// The number right after the first `marker` in `line`, or NaN.
double after(std::string_view line, std::string_view marker, bool commas = false)
{
    const std::size_t at = line.find(marker);
    return at == std::string_view::npos ? std::nan("") : numberAt(line, at + marker.size(), commas);
}

long long iterationAfter(std::string_view line, std::string_view marker)
{
    const double v = after(line, marker);
    return std::isfinite(v) && v >= 0 && v < 1e15 ? static_cast<long long>(v) : -1;
}

void readMegatronArguments(const std::vector<std::string>& lines,
                           std::map<std::string, std::string>& out)
{
    bool inside = false;
    for (const std::string& line : lines) {
        if (line.find("------------------------ arguments ------------------------") !=
            std::string::npos) {
            inside = true;
            out.clear(); // the last dump of the log (a restarted job prints one per start)
            continue;
        }
        if (!inside)
            continue;
        if (line.find("end of arguments") != std::string::npos) {
            inside = false;
            continue;
        }
        // "  name ........ value": the name, a space, a run of dots, a space, the value.
        const std::size_t dots = line.find(" ..");
        if (dots == std::string::npos)
            continue;
        std::size_t nameStart = line.rfind(' ', dots - 1);
        nameStart = nameStart == std::string::npos ? 0 : nameStart + 1;
        const std::string name = line.substr(nameStart, dots - nameStart);
        std::size_t valueStart = dots + 1;
        while (valueStart < line.size() && line[valueStart] == '.')
            ++valueStart;
        if (valueStart < line.size() && line[valueStart] == ' ')
            ++valueStart;
        if (!name.empty() && out.size() < 10'000)
            out[name] = line.substr(valueStart);
    }
}

// The first "YYYY-MM-DD" in a line, as a month.
std::optional<YearMonth> stampedMonth(std::string_view line)
{
    const auto digits = [&](std::size_t at, std::size_t n) {
        for (std::size_t k = at; k < at + n; ++k)
            if (!std::isdigit(static_cast<unsigned char>(line[k])))
                return false;
        return true;
    };
    for (std::size_t i = 0; i + 10 <= line.size(); ++i)
        if (digits(i, 4) && line[i + 4] == '-' && digits(i + 5, 2) && line[i + 7] == '-' &&
            digits(i + 8, 2))
            if (std::optional<YearMonth> m = parseYearMonth(line.substr(i, 7)))
                return m;
    return std::nullopt;
}

void summarize(IterationLog& log, const char* what)
{
    const int n = static_cast<int>(log.samples.size());
    log.warmup = std::max(kMinWarmupSamples, n / 10);
    if (n - log.warmup < 2) {
        log.error = "the log holds " + std::to_string(n) + " " + what + (n == 1 ? "" : "s") +
                    "; at least " + std::to_string(log.warmup + 2) + " are needed (the first " +
                    std::to_string(log.warmup) + " include start-up and are left out)";
        return;
    }
    std::vector<double> steady;
    for (int i = log.warmup; i < n; ++i)
        steady.push_back(log.samples[static_cast<std::size_t>(i)].seconds);
    std::sort(steady.begin(), steady.end());
    const std::size_t m = steady.size();
    log.medianS = m % 2 ? steady[m / 2] : 0.5 * (steady[m / 2 - 1] + steady[m / 2]);
    log.lowS = steady.front();
    log.highS = steady.back();
}

void add(IterationLog& log, long long iteration, double seconds, std::string_view line)
{
    if (!(seconds > 0.0) || !std::isfinite(seconds))
        return;
    if (!log.month)
        log.month = stampedMonth(line);
    // A progress bar prints the same step again as it redraws: keep the last.
    if (iteration >= 0 && !log.samples.empty() && log.samples.back().iteration == iteration)
        log.samples.back().seconds = seconds;
    else
        log.samples.push_back({iteration, seconds});
}

} // namespace

IterationLog readIterationLog(Framework framework, std::string_view text, double tokensPerIteration,
                              long long gpus)
{
    IterationLog log;
    const std::vector<std::string> lines = logLines(text);
    switch (framework) {
    case Framework::MegatronLm:
        for (const std::string& line : lines) {
            const double ms = after(line, "elapsed time per iteration (ms):");
            if (std::isfinite(ms))
                add(log, iterationAfter(line, "iteration "), ms / 1000.0, line);
        }
        readMegatronArguments(lines, log.arguments);
        if (log.samples.empty())
            log.error = "no \"elapsed time per iteration (ms)\" in the log: is it Megatron-LM's "
                        "output (the last rank prints it)?";
        break;
    case Framework::Nemo:
        for (const std::string& line : lines) {
            double s = after(line, "train_step_timing in s:");
            if (!std::isfinite(s))
                s = after(line, "train_step_timing in s=");
            if (!std::isfinite(s))
                continue;
            long long iteration = iterationAfter(line, "iteration ");
            if (iteration < 0)
                iteration = iterationAfter(line, "global_step=");
            add(log, iteration, s, line);
        }
        if (log.samples.empty())
            log.error = "no \"train_step_timing in s\" in the log: is it NeMo's output with the "
                        "TimingCallback (global rank 0 prints it)?";
        break;
    case Framework::TorchTitan:
        if (!(tokensPerIteration > 0.0) || gpus <= 0) {
            log.error = "TorchTitan logs tokens per second per GPU; the iteration's tokens and "
                        "the GPUs are needed to turn them into seconds";
            return log;
        }
        for (const std::string& line : lines) {
            if (line.find("step:") == std::string::npos)
                continue;
            double tps = after(line, "tps:", true);
            if (!std::isfinite(tps))
                tps = after(line, "wps:", true); // before TorchTitan renamed it (2024-11)
            if (std::isfinite(tps) && tps > 0.0)
                add(log, iterationAfter(line, "step:"),
                    tokensPerIteration / (tps * static_cast<double>(gpus)), line);
        }
        if (log.samples.empty())
            log.error = "no \"step: ... tps: ...\" line in the log: is it TorchTitan's output?";
        break;
    }
    if (log.ok())
        summarize(log, framework == Framework::MegatronLm ? "logged interval" : "logged step");
    return log;
}

} // namespace archipelago::core
