// A warning's text, made where it is shown: one template per code (and form), its figures
// formatted here with their units, so that producers only record the figures.
#include "model/evaluation.h"

#include <array>
#include <cmath>
#include <cstdio>

namespace archipelago::core {

Warning&& Warning::num(std::string_view key, double value) &&
{
    data.push_back({key, value});
    return std::move(*this);
}

Warning&& Warning::count(std::string_view key, std::int64_t value) &&
{
    data.push_back({key, value});
    return std::move(*this);
}

Warning&& Warning::name(std::string_view key, std::string value) &&
{
    data.push_back({key, std::move(value)});
    return std::move(*this);
}

const WarningValue* Warning::find(std::string_view key) const
{
    for (const WarningValue& v : data)
        if (v.key == key)
            return &v;
    return nullptr;
}

double Warning::number(std::string_view key) const
{
    const WarningValue* v = find(key);
    const double* d = v ? std::get_if<double>(&v->value) : nullptr;
    return d ? *d : 0.0;
}

std::int64_t Warning::integer(std::string_view key) const
{
    const WarningValue* v = find(key);
    const std::int64_t* i = v ? std::get_if<std::int64_t>(&v->value) : nullptr;
    return i ? *i : 0;
}

std::string_view Warning::text(std::string_view key) const
{
    const WarningValue* v = find(key);
    const std::string* s = v ? std::get_if<std::string>(&v->value) : nullptr;
    return s ? std::string_view(*s) : std::string_view();
}

namespace {

struct Template
{
    WarningCode code;
    WarningForm form;
    const char* text; // {key} or {key:spec}, spec: .Nf (N decimals), g (6 digits), w (whole)
};

// Every warning's text. Keys name the figure and its unit; a missing figure prints "?".
constexpr std::array kTemplates{
    Template{WarningCode::Invalid, WarningForm::Detail, "{detail}"},
    Template{WarningCode::Invalid, WarningForm::GpuOverflow,
             "tp * cp * pp * dp = {tp} * {cp} * {pp} * {dp} is more than 2^63 GPUs"},
    Template{WarningCode::UnknownAccelerator, WarningForm::Detail, "{detail}"},
    Template{WarningCode::DegreesDoNotDivide, WarningForm::Detail, "{detail}"},
    Template{WarningCode::Pipeline, WarningForm::Default, "pipeline schedule cannot run: {detail}"},
    Template{WarningCode::VirtualStagesIgnored, WarningForm::Default,
             "{virtual_stages} virtual stages need the interleaved 1F1B schedule; evaluated "
             "with 1"},
    Template{WarningCode::InterleavingFallback, WarningForm::Default,
             "{micro_batches} micro-batches are not a multiple of pp {pp}, which interleaved "
             "1F1B needs: evaluated as 1F1B without virtual stages (v {virtual_stages} "
             "ignored)"},
    Template{WarningCode::PlacementInvalid, WarningForm::NoDatacenter,
             "the topology has no datacenter"},
    Template{WarningCode::PlacementInvalid, WarningForm::ShardStages,
             "a shard lists {stage_datacenters} stage datacenters for PP {pp}"},
    Template{WarningCode::PlacementInvalid, WarningForm::UnknownDatacenter,
             "stage placed in unknown datacenter {datacenter_id}"},
    Template{WarningCode::PlacementInvalid, WarningForm::InvalidSplit,
             "a shard's split across datacenters is invalid (unknown datacenter, dimension not "
             "tp or cp, or k not dividing the degree): ignored"},
    Template{WarningCode::PlacementInvalid, WarningForm::NoReplica,
             "no data-parallel replica: the GPU count is not a multiple of TP x CP x PP, or the "
             "shards hold no replica"},
    Template{WarningCode::CatalogMissing, WarningForm::Accelerator,
             "accelerator \"{accelerator}\" of {datacenter} is not in the catalog: scale-up "
             "{scale_up_gbps} GB/s assumed"},
    Template{WarningCode::CatalogMissing, WarningForm::Nic,
             "NIC \"{nic}\" of {datacenter} is not in the catalog: using {nic_gbps:w} Gb/s"},
    Template{WarningCode::CatalogMissing, WarningForm::Switch,
             "switch \"{switch}\" of {datacenter} is not in the catalog: using {using}"},
    Template{WarningCode::CatalogMissing, WarningForm::NoSwitch,
             "no switch for {datacenter} in the catalog: switches unpriced"},
    Template{WarningCode::CatalogMissing, WarningForm::UnpricedLink,
             "no optic or cable for a {gbps:w}G link reaching {reach_m:w} m in the catalog: "
             "unpriced"},
    Template{WarningCode::CatalogMissing, WarningForm::DciOptic,
             "DCI optic \"{optic}\" of {link} is not in the catalog: using {using}"},
    Template{WarningCode::CatalogMissing, WarningForm::LineSystem,
             "line system \"{line_system}\" of {link} is not in the catalog: using {using}"},
    Template{WarningCode::FabricOverCapacity, WarningForm::Default,
             "{datacenter}: {host_ports} host ports exceed the {capacity_hosts} a {tiers}-tier "
             "fabric of radix {radix} holds"},
    Template{WarningCode::TpExceedsScaleUp, WarningForm::Default,
             "TP {tp} does not fit the {domain_gpus}-GPU scale-up domain of {datacenter}: its "
             "collectives cross the {tier} tier at {tier_gbps} GB/s per GPU instead of "
             "{scale_up_gbps} GB/s"},
    Template{WarningCode::TpExceedsScaleUp, WarningForm::ScaleOutFabric,
             "TP {tp} exceeds the {domain_gpus}-GPU scale-up domain of {datacenter}: TP "
             "collectives run over the scale-out fabric"},
    Template{WarningCode::TpCrossesDc, WarningForm::Default,
             "TP {degree} is split across {link} ({distance_km} km, {latency_us} us per step): "
             "every tensor-parallel collective crosses it, {flows} GPU flows share it, "
             "{gpu_gbps} GB/s per GPU"},
    Template{WarningCode::CpCrossesDc, WarningForm::Default,
             "CP {degree} is split across {link} ({distance_km} km, {latency_us} us per step): "
             "every context-parallel collective crosses it, {flows} GPU flows share it, "
             "{gpu_gbps} GB/s per GPU"},
    Template{WarningCode::EpCrossesDc, WarningForm::Default,
             "EP {ep} does not divide the {expert_ranks} expert ranks of {datacenter}: expert "
             "all-to-all crosses the datacenter link"},
    Template{WarningCode::PpCrossesDc, WarningForm::Default,
             "stage {from_stage} → {to_stage} crosses {route} ({route_km:g} km, {latency_us} µs "
             "per transfer): {flows} GPU flows share {link}, {gpu_gbps} GB/s per GPU"},
    Template{WarningCode::DciUnreachable, WarningForm::Default,
             "no DCI route joins datacenters {from_datacenter_id} and {to_datacenter_id}"},
    Template{WarningCode::DciShared, WarningForm::Default,
             "{what} of {groups} group{groups:s} shares {link} ({capacity_tbps} Tb/s): "
             "{group_gbps} GB/s "
             "per group, {gpu_gbps} GB/s per GPU"},
    Template{WarningCode::DciTransportBound, WarningForm::Default,
             "{transport} on {link} ({distance_km:g} km, loss {loss}): {connections:w} "
             "connection{connections:s} "
             "cross it at once and, at the {rtt_ms} ms RTT of {route}, carry {usable_gbps} of "
             "its {capacity_gbps} GB/s; used by {users}"},
    Template{WarningCode::DciReach, WarningForm::DciOptic,
             "{optic} reaches {reach_km:w} km but {link} is {distance_km:w} km: needs "
             "longer-reach optics or regeneration"},
    Template{WarningCode::DciReach, WarningForm::LineSystem,
             "{line_system} reaches {reach_km:w} km but {link} is {distance_km:w} km"},
    Template{WarningCode::RailOnlyForwarding, WarningForm::Default,
             "{what} on rail-only {datacenter}: cross-rail traffic is forwarded through the "
             "scale-up domain first (Wang et al. 2023): {forwarded_gbps} instead of "
             "{plain_gbps} GB/s per GPU (+{extra_time_pct}% time)"},
    Template{WarningCode::DciExposed, WarningForm::Default,
             "stage {from_stage} → {to_stage} crosses {route} ({route_km:g} km, RTT "
             "{rtt_ms:.2f} ms): {latency_ms:.2f} ms latency + {transfer_ms:.2f} ms transfer per "
             "micro-batch; its DCI transfers lengthen the pipeline by {exposed_ms:.1f} ms per "
             "iteration (all DCI boundaries together: {all_exposed_ms:.1f} ms)"},
    Template{WarningCode::OutOfMemory, WarningForm::Default,
             "out of memory on stage {stage}: {total_gib:.1f} GiB > {hbm_gib:g} GiB HBM "
             "(weights {weights_gib:.1f}, gradients {gradients_gib:.1f}, optimizer "
             "{optimizer_gib:.1f} GiB, activations {activations_gib:.1f} GiB for "
             "{in_flight:.1f} micro-batches in flight)"},
    Template{WarningCode::Bubble, WarningForm::Default,
             "pipeline idle is {bubble_pct:.0f}% of the iteration ({bubble_s:t} on the busiest "
             "stage): {pp} stages, {micro_batches} micro-batches"},
    Template{WarningCode::DpExposed, WarningForm::Default,
             "data-parallel gradient reduction exposes {dp_comm_s:t} per iteration "
             "({dp_comm_pct:.0f}% of {iteration_s:t})"},
    Template{WarningCode::TpExposed, WarningForm::Default,
             "tensor-parallel communication exposes {tp_comm_s:t} per iteration "
             "({tp_comm_pct:.0f}%) at TP {tp}"},
    Template{WarningCode::InternalError, WarningForm::Detail, "{detail}"},
    Template{WarningCode::NonFinite, WarningForm::Detail, "{detail}"},
    Template{WarningCode::NonFinite, WarningForm::OpticCount,
             "the DCI optic count of {link} is out of range: {wavelengths} wavelengths of "
             "{gbps_per_wavelength:g} Gb/s on {optic} ({optic_gbps:g} Gb/s); check "
             "Gbps_per_wavelength"},
    Template{WarningCode::NonFinite, WarningForm::AmplifierCount,
             "the amplifier count of {link} is out of range: {distance_km:g} km with an "
             "amplifier every {spacing_km:g} km; check amplifier_spacing_km of line system "
             "{line_system}"},
    Template{WarningCode::SpareGpus, WarningForm::Default,
             "{datacenter} holds {held_gpus} GPUs, but the placement puts {placed_gpus} there: "
             "{spare_gpus} stay idle"},
    Template{WarningCode::ParallelDciLinks, WarningForm::Default,
             "{links} DCI links of different settings join {from_datacenter} and "
             "{to_datacenter}, and their traffic takes one route ({link}, {used_tbps:g} Tb/s): "
             "the capacity of the other {idle_links} ({idle_tbps:g} Tb/s) is billed but carries "
             "nothing in this model; parallel links share the traffic when they differ only in "
             "distance, latency and wavelengths"},
    Template{WarningCode::CheckpointInterval, WarningForm::Default,
             "a checkpoint every {asked_s:g} s is asked, but an iteration takes "
             "{iteration_s:.3g} s and a checkpoint {write_s:.3g} s to write (and copy to "
             "another building, when asked): checkpoints come every {interval_s:.3g} s"},
    Template{WarningCode::CheckpointReplica, WarningForm::Default,
             "a copy of each checkpoint in another building is asked, but {reason}: the copy is "
             "not counted"},
    Template{WarningCode::MemoryHeadroom, WarningForm::Default,
             "stage {stage} needs {total_gib:.2f} of {hbm_gib:g} GiB HBM ({use_pct:.2f}%): it "
             "fits only if the allocator fragments at most {fits_pct:.1f}% of the "
             "{allocated_gib:.1f} GiB it allocates, and PyTorch's leaves 5-10% (GMLake, 2024)"},
};

// Past this magnitude a fixed-point figure would run to many digits: three significant
// digits say as much.
constexpr double kFixedLimit = 1e9;

std::string printf1(const char* format, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

// A number as the spec asks: ".Nf" N decimals, "g" six significant digits, "w" rounded to a
// whole number, "t" seconds with the unit that reads (µs, ms, s), none: three significant digits
// (one decimal from 10, none from 100); "s" (in formatValue) the plural ending.
std::string formatFigure(double v, std::string_view spec)
{
    const double a = std::fabs(v);
    if (spec == "t") { // seconds, in the unit that reads: "76.0 µs", "12.3 ms", "1.23 s"
        if (a > 0.0 && a < 1e-3)
            return formatFigure(v * 1e6, {}) + " µs";
        if (a > 0.0 && a < 1.0)
            return formatFigure(v * 1e3, {}) + " ms";
        return formatFigure(v, {}) + " s";
    }
    if (spec == "g")
        return printf1("%.6g", v);
    if (!std::isfinite(v) || a >= kFixedLimit)
        return printf1("%.3g", v);
    if (spec == "w")
        return printf1("%.0f", std::round(v));
    if (spec.size() == 3 && spec[0] == '.' && spec[2] == 'f' && spec[1] >= '0' && spec[1] <= '9') {
        const char format[] = {'%', '.', spec[1], 'f', '\0'};
        return printf1(format, v);
    }
    return printf1(a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : "%.3g", v);
}

std::string formatValue(const WarningValue& value, std::string_view spec)
{
    // "s": the plural ending of the word before it ("{groups} group{groups:s}").
    if (spec == "s") {
        const double* d = std::get_if<double>(&value.value);
        const std::int64_t* i = std::get_if<std::int64_t>(&value.value);
        const bool one = (i && *i == 1) || (d && std::round(*d) == 1.0);
        return one ? std::string() : std::string("s");
    }
    if (const double* d = std::get_if<double>(&value.value))
        return formatFigure(*d, spec);
    if (const std::int64_t* i = std::get_if<std::int64_t>(&value.value))
        return std::to_string(*i);
    return std::get<std::string>(value.value);
}

const char* templateOf(const Warning& warning)
{
    for (const Template& t : kTemplates)
        if (t.code == warning.code && t.form == warning.form)
            return t.text;
    return nullptr;
}

} // namespace

std::string warningText(const Warning& warning)
{
    const char* text = templateOf(warning);
    if (!text) { // a code and form without a template: say what there is
        std::string out(toString(warning.code));
        for (const WarningValue& v : warning.data)
            out += " " + std::string(v.key) + "=" + formatValue(v, {});
        return out;
    }
    std::string out;
    const std::string_view t(text);
    for (std::size_t i = 0; i < t.size(); ++i) {
        const std::size_t close = t[i] == '{' ? t.find('}', i) : std::string_view::npos;
        if (close == std::string_view::npos) {
            out += t[i];
            continue;
        }
        const std::string_view field = t.substr(i + 1, close - i - 1);
        const std::size_t colon = field.find(':');
        const std::string_view key = field.substr(0, colon);
        const std::string_view spec =
            colon == std::string_view::npos ? std::string_view() : field.substr(colon + 1);
        const WarningValue* value = warning.find(key);
        out += value ? formatValue(*value, spec) : std::string("?");
        i = close;
    }
    return out;
}

} // namespace archipelago::core
