// The readers of launch settings: shell words for command lines and scripts, a YAML subset for
// NeMo recipes, a TOML subset for TorchTitan job files.
#include "launch/launchimport.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace archipelago::core {

namespace {

Diagnostic readError(const std::string& file, int line, const std::string& message)
{
    Diagnostic d;
    d.file = file;
    d.message = "line " + std::to_string(line) + ": " + message;
    return d;
}

std::string trimmed(std::string_view text)
{
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string_view::npos)
        return {};
    const auto last = text.find_last_not_of(" \t\r");
    return std::string(text.substr(first, last - first + 1));
}

bool isNameChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// $NAME and ${NAME} from the assignments seen so far; anything else stays as written.
std::string substituted(const std::string& word, const std::map<std::string, std::string>& vars)
{
    std::string out;
    for (std::size_t i = 0; i < word.size(); ++i) {
        if (word[i] != '$' || i + 1 == word.size()) {
            out += word[i];
            continue;
        }
        std::size_t end = i + 1;
        std::string name;
        if (word[end] == '{') {
            const std::size_t close = word.find('}', end);
            if (close == std::string::npos) {
                out += word[i];
                continue;
            }
            name = word.substr(end + 1, close - end - 1);
            end = close + 1;
        } else {
            while (end < word.size() && isNameChar(word[end]))
                ++end;
            name = word.substr(i + 1, end - i - 1);
        }
        const auto it = vars.find(name);
        if (it == vars.end()) {
            out += word.substr(i, end - i);
        } else {
            out += it->second;
        }
        i = end - 1;
    }
    return out;
}

// Shell words with their quotes removed. Comments run from an unquoted '#' at a word's start to
// the end of the line; '(' ')' ';' '|' '&' and newlines end words; a here-document's body is
// skipped (TorchTitan's TOML is read by its own reader).
std::vector<std::string> shellWords(std::string_view text, const std::string& file,
                                    std::vector<Diagnostic>& errors)
{
    std::vector<std::string> words;
    std::map<std::string, std::string> vars;
    std::string word;
    bool inWord = false;
    bool quotedWord = false;
    int line = 1;
    std::string heredocEnd;
    const auto finish = [&] {
        if (!inWord)
            return;
        const std::size_t eq = word.find('=');
        if (eq != std::string::npos && eq > 0 && !word.starts_with("-") &&
            std::all_of(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(eq), isNameChar))
            vars[word.substr(0, eq)] = substituted(word.substr(eq + 1), vars);
        // An unquoted expansion splits at blanks, as the shell does ($GPT_ARGS).
        const std::string value = substituted(word, vars);
        if (quotedWord || value.find_first_of(" \t\n") == std::string::npos) {
            words.push_back(value);
        } else {
            std::istringstream parts(value);
            for (std::string part; parts >> part;)
                words.push_back(part);
        }
        word.clear();
        inWord = false;
        quotedWord = false;
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (!heredocEnd.empty()) { // skip to the terminator line
            const std::size_t eol = text.find('\n', i);
            const std::string_view rest =
                text.substr(i, eol == std::string_view::npos ? std::string_view::npos : eol - i);
            if (trimmed(rest) == heredocEnd)
                heredocEnd.clear();
            if (eol == std::string_view::npos)
                break;
            i = eol;
            ++line;
            continue;
        }
        if (c == '\\' && i + 1 < text.size()) {
            if (text[i + 1] == '\n') {
                ++line;
            } else {
                word += text[i + 1];
                inWord = true;
            }
            ++i;
            continue;
        }
        if (c == '\'' || c == '"') {
            const std::size_t close = text.find(c, i + 1);
            if (close == std::string_view::npos) {
                errors.push_back(readError(file, line, std::string("unclosed ") + c));
                return words;
            }
            const std::string_view quoted = text.substr(i + 1, close - i - 1);
            line += static_cast<int>(std::count(quoted.begin(), quoted.end(), '\n'));
            word += quoted;
            inWord = true;
            quotedWord = true;
            i = close;
            continue;
        }
        if (c == '#' && !inWord) {
            const std::size_t eol = text.find('\n', i);
            if (eol == std::string_view::npos)
                break;
            i = eol - 1;
            continue;
        }
        if (c == '<' && text.substr(i, 3) == "<<<") { // a here-string is a word
            finish();
            i += 2;
            continue;
        }
        if (c == '<' && text.substr(i, 2) == "<<" && !inWord) {
            // <<'END', <<"END", <<END or <<-END: the body is not shell words.
            std::size_t j = i + 2;
            if (j < text.size() && text[j] == '-')
                ++j;
            std::string end;
            while (j < text.size() && text[j] != '\n' &&
                   !std::isspace(static_cast<unsigned char>(text[j]))) {
                if (text[j] != '\'' && text[j] != '"')
                    end += text[j];
                ++j;
            }
            heredocEnd = end;
            const std::size_t eol = text.find('\n', j);
            if (eol == std::string_view::npos)
                break;
            i = eol;
            ++line;
            continue;
        }
        if (std::isspace(static_cast<unsigned char>(c)) || c == '(' || c == ')' || c == ';' ||
            c == '|' || c == '&') {
            finish();
            if (c == '\n')
                ++line;
            continue;
        }
        word += c;
        inWord = true;
    }
    finish();
    return words;
}

// A line "key:" or "key: value" (an identifier, then a colon), as a recipe YAML has.
bool looksLikeYaml(std::string_view text)
{
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        const std::string line = trimmed(text.substr(start, end - start));
        std::size_t i = 0;
        if (!line.empty() && (std::isalpha(static_cast<unsigned char>(line[0])) || line[0] == '_'))
            while (i < line.size() && isNameChar(line[i]))
                ++i;
        if (i > 0 && i < line.size() && line[i] == ':')
            return true;
        start = end + 1;
    }
    return false;
}

// One of parse_str_to_list's two re.sub passes, without std::regex (whose recursion overflows
// the stack on long inputs): at each position, `match` returns the length of a match and sets
// the repeated text and count, or returns 0. False when the result would pass `limit`.
template <typename Match> bool unroll(std::string& text, std::size_t limit, Match match)
{
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        std::string repeated;
        long long count = 0;
        const std::size_t length = match(text, i, repeated, count);
        if (length == 0) {
            out += text[i++];
            continue;
        }
        if (count > 0 && (repeated.size() * static_cast<std::size_t>(count) > limit ||
                          out.size() + repeated.size() * static_cast<std::size_t>(count) > limit))
            return false;
        for (long long k = 0; k < count; ++k)
            out += repeated;
        i += length;
    }
    text = std::move(out);
    return true;
}

// "*" and digits at `at`: their length (0 when there are none) and the number.
std::size_t repeatCount(const std::string& text, std::size_t at, long long& count)
{
    if (at >= text.size() || text[at] != '*')
        return 0;
    std::size_t end = at + 1;
    count = 0;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) {
        count = std::min<long long>(count * 10 + (text[end] - '0'), 1'000'000'000);
        ++end;
    }
    return end > at + 1 ? end - at : 0;
}

} // namespace

FoundSettings readMegatronSettings(std::string_view text, const std::string& fileName)
{
    FoundSettings found;
    const std::vector<std::string> words = shellWords(text, fileName, found.errors);
    // Megatron-LM's switches that the importer reads (a word after one is not its value).
    static const char* const kSwitches[] = {"--sequence-parallel",
                                            "--use-distributed-optimizer",
                                            "--use-megatron-fsdp",
                                            "--overlap-grad-reduce",
                                            "--overlap-param-gather",
                                            "--tp-comm-overlap",
                                            "--overlap-moe-expert-parallel-comm",
                                            "--no-overlap-p2p-communication",
                                            "--grad-reduce-in-bf16",
                                            "--group-query-attention",
                                            "--swiglu",
                                            "--untie-embeddings-and-output-weights",
                                            "--bf16",
                                            "--fp16",
                                            "--multi-latent-attention",
                                            "--moe-grouped-gemm",
                                            "--mock-data",
                                            "--async-save",
                                            "--use-tp-pp-dp-mapping",
                                            "--use-flash-attn",
                                            "--use-torch-fsdp2",
                                            "--use-custom-fsdp"};
    const auto isSwitch = [](const std::string& flag) {
        return std::find(std::begin(kSwitches), std::end(kSwitches), flag) != std::end(kSwitches);
    };
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i];
        if (!w.starts_with("--") || w.size() == 2)
            continue;
        const std::size_t eq = w.find('=');
        if (eq != std::string::npos) {
            found.values[w.substr(0, eq)] = w.substr(eq + 1);
            continue;
        }
        if (!isSwitch(w) && i + 1 < words.size() && !words[i + 1].starts_with("--")) {
            found.values[w] = words[i + 1];
            ++i;
        } else {
            found.values[w] = "";
        }
    }
    return found;
}

FoundSettings readNemoSettings(std::string_view text, const std::string& fileName)
{
    FoundSettings found;
    // A recipe YAML has "key:" lines and no "key=value" words; anything else is a command.
    const bool yaml = looksLikeYaml(text) && text.find('=') == std::string_view::npos;
    if (!yaml) {
        for (const std::string& w : shellWords(text, fileName, found.errors)) {
            const std::size_t eq = w.find('=');
            if (eq == std::string::npos || eq == 0 || w.starts_with("-"))
                continue;
            const std::string key = w.substr(0, eq);
            if (key.find('.') != std::string::npos)
                found.values[key] = w.substr(eq + 1);
        }
        return found;
    }
    // YAML: block mappings by indentation; a list item's content is skipped.
    std::vector<std::pair<int, std::string>> path; // (indent, key)
    int skipDeeperThan = -1;
    std::istringstream lines{std::string(text)};
    int lineNo = 0;
    for (std::string raw; std::getline(lines, raw);) {
        ++lineNo;
        std::string line = raw;
        if (const std::size_t hash = line.find(" #"); hash != std::string::npos)
            line.resize(hash);
        if (trimmed(line).empty() || trimmed(line).starts_with('#') || trimmed(line) == "---")
            continue;
        const int indent = static_cast<int>(line.find_first_not_of(' '));
        if (skipDeeperThan >= 0 && indent > skipDeeperThan)
            continue;
        skipDeeperThan = -1;
        const std::string body = trimmed(line);
        while (!path.empty() && path.back().first >= indent)
            path.pop_back();
        if (body.starts_with("- ") || body == "-") {
            skipDeeperThan = indent;
            continue;
        }
        const std::size_t colon = body.find(':');
        if (colon == std::string::npos) {
            found.errors.push_back(readError(fileName, lineNo, "expected \"key: value\""));
            continue;
        }
        const std::string key = trimmed(body.substr(0, colon));
        std::string value = trimmed(body.substr(colon + 1));
        if (value.empty()) {
            path.emplace_back(indent, key);
            continue;
        }
        std::string dotted;
        for (const auto& [_, k] : path)
            dotted += k + ".";
        found.values[dotted + key] = value;
    }
    return found;
}

FoundSettings readTorchTitanSettings(std::string_view text, const std::string& fileName)
{
    FoundSettings found;
    // --section.key value flags (TorchTitan's command line) anywhere in the text.
    const std::vector<std::string> words = shellWords(text, fileName, found.errors);
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i];
        if (!w.starts_with("--") || w.find('.') == std::string::npos ||
            w.starts_with("--job.config_file"))
            continue;
        const std::size_t eq = w.find('=');
        if (eq != std::string::npos)
            found.values[w.substr(2, eq - 2)] = w.substr(eq + 1);
        else if (i + 1 < words.size() && !words[i + 1].starts_with("--"))
            found.values[w.substr(2)] = words[++i];
    }
    // TOML: the whole text, or the here-document of a launch script ([section] lines start it).
    std::istringstream lines{std::string(text)};
    std::string section;
    bool inToml = false;
    int lineNo = 0;
    for (std::string raw; std::getline(lines, raw);) {
        ++lineNo;
        std::string line = trimmed(raw);
        if (line.starts_with('[') && line.ends_with(']') && line.find('=') == std::string::npos) {
            section = trimmed(std::string_view(line).substr(1, line.size() - 2));
            inToml = true;
            continue;
        }
        if (!inToml)
            continue;
        if (line == "TOML" || line.starts_with("srun ") || line.starts_with("cat "))
            break;
        // A comment outside a string.
        bool inString = false;
        for (std::size_t i = 0; i < line.size(); ++i) {
            if (line[i] == '"')
                inString = !inString;
            if (line[i] == '#' && !inString) {
                line = trimmed(std::string_view(line).substr(0, i));
                break;
            }
        }
        if (line.empty())
            continue;
        const std::size_t eq = line.find('=');
        if (eq == std::string::npos) {
            found.errors.push_back(readError(fileName, lineNo, "expected \"key = value\""));
            continue;
        }
        const std::string key = trimmed(std::string_view(line).substr(0, eq));
        const std::string name = section.empty() ? key : section + "." + key;
        if (!found.values.contains(name)) // a --section.key flag overrides the file
            found.values[name] = trimmed(std::string_view(line).substr(eq + 1));
    }
    return found;
}

std::optional<std::vector<std::string>> parsePipelineLayout(std::string_view text)
{
    // Megatron-LM's layouts hold layers, not millions: a bound on the unrolled text keeps
    // "(t*99999|)*99999" from taking the memory.
    constexpr std::size_t kMaxLayoutChars = 1'000'000;
    std::string layout(text);
    layout.erase(std::remove(layout.begin(), layout.end(), ','), layout.end());
    // r'\(([^)]+)\)\*(\d+)': "(" then one or more non-")" up to ")" then "*n".
    const auto group = [](const std::string& t, std::size_t i, std::string& repeated,
                          long long& count) -> std::size_t {
        if (t[i] != '(')
            return 0;
        const std::size_t close = t.find(')', i + 1);
        if (close == std::string::npos || close == i + 1)
            return 0;
        const std::size_t star = repeatCount(t, close + 1, count);
        if (star == 0)
            return 0;
        repeated = t.substr(i + 1, close - i - 1);
        return close + 1 + star - i;
    };
    // r'(.)\*(\d+)': any character but a newline, then "*n".
    const auto single = [](const std::string& t, std::size_t i, std::string& repeated,
                           long long& count) -> std::size_t {
        if (t[i] == '\n')
            return 0;
        const std::size_t star = repeatCount(t, i + 1, count);
        if (star == 0)
            return 0;
        repeated = std::string(1, t[i]);
        return 1 + star;
    };
    if (!unroll(layout, kMaxLayoutChars, group) || !unroll(layout, kMaxLayoutChars, single))
        return std::nullopt;
    std::vector<std::string> chunks(1);
    for (char c : layout) {
        if (c == '|')
            chunks.emplace_back();
        else if (std::string_view("ELtm").find(c) != std::string_view::npos)
            chunks.back() += c;
        else if (!std::isspace(static_cast<unsigned char>(c)))
            return std::nullopt;
    }
    return chunks;
}

} // namespace archipelago::core
