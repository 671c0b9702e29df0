// The typed reader of found launch settings shared by the three importers
// (launchimportmap.cpp, launchimportnemo.cpp).
#pragma once

#include "launch/launchimport.h"

#include <charconv>
#include <optional>
#include <set>
#include <string_view>

namespace archipelago::core::launch {

// Typed reads of the found settings; every read marks its setting used, and a value of the
// wrong kind is an error naming the setting and what it should be.
class Reader
{
public:
    Reader(const FoundSettings& found, Framework framework, std::string file)
        : m_found(found)
        , m_framework(framework)
        , m_file(std::move(file))
    {}

    bool has(const std::string& name) const { return m_found.values.contains(name); }

    std::optional<std::string> text(const std::string& name)
    {
        const auto it = m_found.values.find(name);
        if (it == m_found.values.end())
            return std::nullopt;
        m_used.insert(name);
        std::string v = it->second;
        if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
            v = v.substr(1, v.size() - 2);
        return v;
    }

    std::optional<long long> integer(const std::string& name, long long min = 1,
                                     long long max = 1'000'000'000)
    {
        const std::optional<std::string> v = text(name);
        if (!v || *v == "None" || *v == "null")
            return std::nullopt;
        long long n = 0;
        const auto r = std::from_chars(v->data(), v->data() + v->size(), n);
        if (r.ec != std::errc{} || r.ptr != v->data() + v->size() || n < min || n > max) {
            fail(name, "expected an integer from " + std::to_string(min) + " to " +
                           std::to_string(max) + ", found '" + *v + "'");
            return std::nullopt;
        }
        return n;
    }

    // A Megatron-LM switch's presence, a Python or TOML boolean.
    std::optional<bool> boolean(const std::string& name)
    {
        const std::optional<std::string> v = text(name);
        if (!v)
            return std::nullopt;
        if (m_framework == Framework::MegatronLm && v->empty())
            return true;
        if (*v == "True" || *v == "true" || *v == "1")
            return true;
        if (*v == "False" || *v == "false" || *v == "0")
            return false;
        fail(name, "expected True or False, found '" + *v + "'");
        return std::nullopt;
    }

    void fail(const std::string& name, const std::string& message)
    {
        Diagnostic d;
        d.file = m_file;
        d.pointer = name;
        d.message = message;
        m_errors.push_back(std::move(d));
    }

    std::vector<std::string> unused() const
    {
        // What launches the job rather than configures it: srun's and torchrun's options.
        static const std::set<std::string> kLauncher = {
            "--distribution", "--ntasks",        "--cpu-bind",    "--nproc_per_node",
            "--nnodes",       "--node_rank",     "--master_addr", "--master_port",
            "--rdzv_backend", "--rdzv_endpoint", "--rdzv_id",     "--factory"};
        std::vector<std::string> out;
        for (const auto& [name, value] : m_found.values)
            if (!m_used.contains(name) && !kLauncher.contains(name))
                out.push_back(value.empty() ? name : name + " " + value);
        return out;
    }

    std::vector<Diagnostic>& errors() { return m_errors; }

private:
    const FoundSettings& m_found;
    Framework m_framework;
    std::string m_file;
    std::set<std::string> m_used;
    std::vector<Diagnostic> m_errors;
};

// A non-negative integer of at most 1e9 that is all of `text`.
inline std::optional<int> wholeNumber(std::string_view text)
{
    int n = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), n);
    if (text.empty() || r.ec != std::errc{} || r.ptr != text.data() + text.size() || n < 0 ||
        n > 1'000'000'000)
        return std::nullopt;
    return n;
}

// Megatron-LM's --moe-layer-freq (and NeMo's moe_layer_freq): "1" (every layer MoE),
// "([0]*N+[1]*M)" or a list of 0s then 1s; the leading dense layers, nullopt for another
// pattern.
inline std::optional<int> leadingDenseLayers(std::string text)
{
    std::erase_if(text, [](char c) { return c == ' ' || c == '(' || c == ')'; });
    if (text == "1")
        return 0;
    if (text.starts_with("[0]*")) {
        const std::size_t plus = text.find("+[1]*");
        if (plus == std::string::npos || !wholeNumber(text.substr(plus + 5)))
            return std::nullopt;
        return wholeNumber(std::string_view(text).substr(4, plus - 4));
    }
    if (text.size() < 3 || text.front() != '[' || text.back() != ']')
        return std::nullopt;
    std::string bits;
    for (std::size_t i = 1; i + 1 < text.size(); ++i) {
        const char c = text[i];
        if (c == '0' || c == '1')
            bits += c;
        else if (c != ',')
            return std::nullopt;
    }
    const std::size_t firstOne = bits.find('1');
    if (firstOne == std::string::npos || bits.find('0', firstOne) != std::string::npos)
        return std::nullopt;
    return static_cast<int>(firstOne);
}

// The left size of an attention window written "LEFT,RIGHT", "(LEFT, RIGHT)" or
// "[LEFT,RIGHT]" (RIGHT 0 or -1 for causal attention).
inline std::optional<int> windowLeft(std::string text)
{
    std::erase_if(text,
                  [](char c) { return c == ' ' || c == '(' || c == ')' || c == '[' || c == ']'; });
    const std::size_t comma = text.find(',');
    if (comma == std::string::npos)
        return std::nullopt;
    const std::string_view right = std::string_view(text).substr(comma + 1);
    if (!wholeNumber(right.starts_with('-') ? right.substr(1) : right))
        return std::nullopt;
    return wholeNumber(std::string_view(text).substr(0, comma));
}

inline void setInt(Reader& r, const std::string& name, int& field)
{
    if (const auto v = r.integer(name))
        field = static_cast<int>(std::min<long long>(*v, 1'000'000'000));
}

void importNemo(Reader& r, Scenario& s, ImportedSettings& out);
void importTorchTitan(Reader& r, Scenario& s, ImportedSettings& out);

} // namespace archipelago::core::launch
