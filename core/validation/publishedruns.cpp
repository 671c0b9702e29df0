#include "validation/publishedruns.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace archipelago::core {

namespace {

using Json = nlohmann::json;

// Reads fields of one object, reporting "FILE: /pointer: expected ..., got ..." errors.
class Fields
{
public:
    Fields(const Json& object, std::string pointer, const std::string& file,
           std::vector<Diagnostic>& errors)
        : j_(object)
        , ptr_(std::move(pointer))
        , file_(file)
        , errors_(errors)
    {
        if (!j_.is_object())
            error(ptr_, "expected an object, got " + describe(j_));
    }

    bool valid() const { return j_.is_object(); }
    std::string at(const std::string& key) const { return ptr_ + "/" + key; }

    void error(const std::string& pointer, std::string message)
    {
        errors_.push_back({Diagnostic::Severity::Error, file_, pointer, std::move(message)});
    }

    const Json* get(const std::string& key, bool nullable)
    {
        if (!valid())
            return nullptr;
        auto it = j_.find(key);
        if (it == j_.end()) {
            error(at(key), "missing required field");
            return nullptr;
        }
        if (it->is_null() && !nullable) {
            error(at(key), "expected a value, got null");
            return nullptr;
        }
        return it->is_null() ? nullptr : &*it;
    }

    std::optional<int> integer(const std::string& key, int min, bool nullable = false)
    {
        const Json* v = get(key, nullable);
        if (!v)
            return std::nullopt;
        if (!v->is_number_integer() || v->get<long long>() < min ||
            v->get<long long>() > 1'000'000'000) {
            error(at(key),
                  "expected an integer >= " + std::to_string(min) + ", got " + describe(*v));
            return std::nullopt;
        }
        return static_cast<int>(v->get<long long>());
    }

    std::optional<double> number(const std::string& key, bool nullable = false)
    {
        const Json* v = get(key, nullable);
        if (!v)
            return std::nullopt;
        if (!v->is_number() || !(v->get<double>() > 0.0) || v->get<double>() > 1e30) {
            error(at(key), "expected a positive number, got " + describe(*v));
            return std::nullopt;
        }
        return v->get<double>();
    }

    std::optional<std::string> text(const std::string& key, bool nullable = false)
    {
        const Json* v = get(key, nullable);
        if (!v)
            return std::nullopt;
        if (!v->is_string()) {
            error(at(key), "expected a string, got " + describe(*v));
            return std::nullopt;
        }
        return v->get<std::string>();
    }

    std::optional<bool> boolean(const std::string& key)
    {
        const Json* v = get(key, true);
        if (!v)
            return std::nullopt;
        if (!v->is_boolean()) {
            error(at(key), "expected true, false or null, got " + describe(*v));
            return std::nullopt;
        }
        return v->get<bool>();
    }

    const Json& child(const std::string& key)
    {
        static const Json null;
        const Json* v = get(key, false);
        return v ? *v : null;
    }

    static std::string describe(const Json& v)
    {
        std::string s = v.dump();
        return s.size() > 40 ? s.substr(0, 37) + "..." : s;
    }

private:
    const Json& j_;
    std::string ptr_;
    const std::string& file_;
    std::vector<Diagnostic>& errors_;
};

template <typename T> void set(T& out, const std::optional<T>& v)
{
    if (v)
        out = *v;
}

void readModel(Fields f, PublishedRun& r)
{
    Workload& w = r.model;
    set(w.layers, f.integer("layers", 1));
    set(w.hidden, f.integer("hidden", 1));
    set(w.heads, f.integer("heads", 1));
    set(w.kvHeads, f.integer("kv_heads", 1));
    set(w.ffnHidden, f.integer("ffn_hidden", 1));
    set(w.vocab, f.integer("vocab", 1));
    set(w.seqLen, f.integer("seq_len", 1));
    if (auto a = f.text("ffn_activation")) {
        if (auto act = ffnActivationFromString(*a))
            w.activation = *act;
        else
            f.error(f.at("ffn_activation"), "expected \"gelu\" or \"swiglu\", got \"" + *a + "\"");
    }
    if (f.valid() && w.hidden % w.heads != 0)
        f.error(f.at("heads"), "expected a divisor of hidden " + std::to_string(w.hidden));
    if (f.valid() && (w.kvHeads > w.heads || w.heads % w.kvHeads != 0))
        f.error(f.at("kv_heads"), "expected a divisor of heads " + std::to_string(w.heads));
}

void readTraining(Fields f, PublishedRun& r)
{
    set(r.model.globalBatch, f.integer("global_batch", 1));
    r.microBatch = f.integer("micro_batch", 1, true);
    set(r.tp, f.integer("tp", 1));
    set(r.pp, f.integer("pp", 1));
    set(r.dp, f.integer("dp", 1));
    set(r.cp, f.integer("cp", 1));
    set(r.ep, f.integer("ep", 1));
    r.virtualStages = f.integer("virtual_stages", 1, true);
    r.sequenceParallel = f.boolean("sequence_parallel");
    if (auto rc = f.text("recompute", true)) {
        if (*rc == "full")
            r.recompute = Recompute::Full;
        else if (*rc == "selective")
            r.recompute = Recompute::Selective;
        else
            f.error(f.at("recompute"),
                    "expected \"full\", \"selective\" or null, got \"" + *rc + "\"");
    }
    if (auto p = f.text("precision")) {
        if (auto pr = precisionFromString(*p))
            r.model.precision = *pr;
        else
            f.error(f.at("precision"), "expected \"bf16\" or \"fp8\", got \"" + *p + "\"");
    }
}

void readFabric(Fields f, PublishedRun& r, const Json& fabric)
{
    if (auto k = f.text("kind")) {
        if (auto kind = fabricKindFromString(*k))
            r.fabricKind = *kind;
        else
            f.error(f.at("kind"), "expected clos, rail-optimized or rail-only, got \"" + *k + "\"");
    }
    set(r.fabricTiers, f.integer("tiers", 1));
    if (f.valid() && fabric.contains("pod_gpus")) {
        set(r.podGpus, f.integer("pod_gpus", 1));
        set(r.podOversubscription, f.number("pod_oversubscription"));
    } else {
        set(r.oversubscription, f.number("oversubscription"));
    }
}

void readSystem(Fields f, PublishedRun& r, const std::string& file, std::vector<Diagnostic>& errors)
{
    set(r.accelerator, f.text("accelerator"));
    set(r.peakDenseTflops, f.number("peak_dense_tflops"));
    set(r.hbmGib, f.number("hbm_gib"));
    set(r.gpus, f.integer("gpus", 1));
    set(r.gpusPerNode, f.integer("gpus_per_node", 1));
    set(r.scaleUpGBpsPerDirection, f.number("scale_up_GBps_per_direction"));
    set(r.scaleOutGbpsPerGpu, f.number("scale_out_Gbps_per_gpu"));
    const Json& fabric = f.child("fabric");
    if (f.valid())
        readFabric(Fields(fabric, f.at("fabric"), file, errors), r, fabric);
}

} // namespace

PublishedRunsLoad parsePublishedRuns(std::string_view text, const std::string& file)
{
    PublishedRunsLoad out;
    Json doc = Json::parse(text, nullptr, false);
    if (doc.is_discarded()) {
        out.errors.push_back(
            {Diagnostic::Severity::Error, file, "", "expected JSON, not parseable"});
        return out;
    }
    Fields top(doc, "", file, out.errors);
    if (auto fmt = top.text("format"); fmt && *fmt != kPublishedRunsFormat)
        top.error("/format",
                  std::string("expected \"") + kPublishedRunsFormat + "\", got \"" + *fmt + "\"");
    if (auto v = top.integer("version", 1); v && *v != kPublishedRunsVersion)
        top.error("/version", "expected 1, got " + std::to_string(*v));
    const Json& runs = top.child("runs");
    if (top.valid() && !runs.is_array()) {
        if (!runs.is_null())
            top.error("/runs", "expected an array, got " + Fields::describe(runs));
        return out;
    }
    if (!top.valid())
        return out;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const std::string ptr = "/runs/" + std::to_string(i);
        Fields f(runs[i], ptr, file, out.errors);
        if (!f.valid())
            continue;
        PublishedRun r;
        set(r.id, f.text("id"));
        set(r.source, f.text("source"));
        if (auto n = f.text("notes", true))
            r.notes = *n;
        r.model.name = r.id;
        readModel(Fields(f.child("model"), f.at("model"), file, out.errors), r);
        readTraining(Fields(f.child("training"), f.at("training"), file, out.errors), r);
        readSystem(Fields(f.child("system"), f.at("system"), file, out.errors), r, file,
                   out.errors);
        Fields measured(f.child("measured"), f.at("measured"), file, out.errors);
        set(r.measuredIterationS, measured.number("iteration_time_s"));
        if (f.valid() && runs[i].contains("system") && runs[i]["system"].is_object()) {
            const long long product = static_cast<long long>(r.tp) * r.pp * r.dp * r.cp;
            if (product != r.gpus)
                f.error(ptr + "/system/gpus", "expected tp*pp*dp*cp = " + std::to_string(product) +
                                                  ", got " + std::to_string(r.gpus));
            if (r.gpus % r.gpusPerNode != 0)
                f.error(ptr + "/system/gpus_per_node",
                        "expected a divisor of gpus " + std::to_string(r.gpus));
        }
        for (const PublishedRun& other : out.runs)
            if (other.id == r.id && !r.id.empty())
                f.error(ptr + "/id", "expected a unique id, \"" + r.id + "\" repeats");
        out.runs.push_back(std::move(r));
    }
    return out;
}

PublishedRunsLoad loadPublishedRuns(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        PublishedRunsLoad out;
        out.errors.push_back({Diagnostic::Severity::Error, path, "", "cannot open the file"});
        return out;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return parsePublishedRuns(text.str(), path);
}

} // namespace archipelago::core
