#!/usr/bin/env python3
"""Regenerates the tables in README.md from archipelago-cli (never by hand).

    scripts/readme_tables.py [--cli build/release/app/archipelago-cli] [--write]

Tables: predicted vs measured iteration time on ../shared/validation/v2/published-runs.json,
../shared/validation/v2/published-runs-h100-megascale.json and tests/data/hopper-runs.json; each
preset beside its paper's figure; GeoPipe's 1F1B vs DCI-aware pipeline against DCI latency and
capacity; the explorer's default space on every preset; the scale-across comparison
(scripts/scale_across.py); each preset's goodput under failures beside Llama 3's published
interruptions; each preset's run cost beside DeepSeek-V3's published GPU-hours and rental cost;
rail-only vs rail-optimized Clos network cost and iteration time at 8k, 16k, 32k and 128k GPUs, built from the preset pair presets/rail-*-32k.json by scaling
the pod count, the DP degree and the global batch together (weak scaling: the same
micro-batches per replica at every size).
"""
import argparse
import copy
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scale_across  # noqa: E402  (the scale-across comparison, scripts/scale_across.py)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_json(cli, *args, allow_fail=False):
    out = subprocess.run([cli, *args, "--json"], capture_output=True, text=True)
    if out.returncode != 0 and not (allow_fail and out.stdout.strip()):
        sys.exit(f"{' '.join(args)} failed:\n{out.stderr}")
    return json.loads(out.stdout)


def validation_table(cli, path, label):
    report = run_json(cli, "validate", path, allow_fail=True)
    rows = [f"| run ({label}) | measured (s) | predicted (s) | error |", "|---|---:|---:|---:|"]
    for run in report["runs"]:
        if run.get("predicted_s") is None:
            rows.append(f"| {run['id']} | {run['measured_s']:.3f} | not evaluated | "
                        f"{run.get('reason', '')} |")
            continue
        rows.append(f"| {run['id']} | {run['measured_s']:.3f} | {run['predicted_s']:.3f} | "
                    f"{run['error'] * 100:+.1f}% |")
    if all(run.get("predicted_s") is None for run in report["runs"]):
        rows.append("| **no run evaluated** | | | |")
        return "\n".join(rows)
    rows.append(f"| **mean / largest absolute error** | | | **{report['mean_abs_error'] * 100:.2f}% / "
                f"{report['max_abs_error'] * 100:.2f}%** |")
    return "\n".join(rows)


def scaled(preset, gpus, tiers):
    s = copy.deepcopy(preset)
    dc = s["topology"]["datacenters"][0]
    pod = dc["pods"][0]
    pod_gpus = pod["domains_per_pod"] * pod["gpus_per_domain"]
    pod["count"] = gpus // pod_gpus
    dc["fabric"]["tiers"] = tiers
    par = s["parallelism"]
    shard = s["placement"]["shards"][0]
    old_dp = shard["dp_replicas"]
    shard["dp_replicas"] = gpus // (par["tp"] * par.get("cp", 1) * par["pp"])
    s["workload"]["global_batch"] = s["workload"]["global_batch"] * shard["dp_replicas"] // old_dp
    return s


def fabric_capex(evaluation):
    return sum(item["capex_usd"] for item in evaluation["bom"] if item["category"] != "nic")


def rail_table(cli):
    only = json.load(open(os.path.join(ROOT, "presets/rail-only-32k.json")))
    opt = json.load(open(os.path.join(ROOT, "presets/rail-optimized-32k.json")))
    rows = ["| GPUs | fabric capex, rail-optimized Clos | fabric capex, rail-only | fabric cost fall | "
            "fall incl. NICs | iteration time Clos | iteration time rail-only | difference |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as tmp:
        for gpus in (8192, 16384, 32768, 131072):
            results = []
            for name, preset in (("opt", opt), ("only", only)):
                # A rail of 16,384 GPUs no longer fits two tiers of radix-128 switches.
                tiers = preset["topology"]["datacenters"][0]["fabric"]["tiers"]
                if gpus > 65536:
                    tiers = 3
                path = os.path.join(tmp, f"{name}-{gpus}.json")
                json.dump(scaled(preset, gpus, tiers), open(path, "w"))
                results.append(run_json(cli, "evaluate", path))
            a, b = results
            # The fabric is what differs: switches, optics and cables. NICs are the same in both
            # designs (one per GPU), as in the rail-only study's comparison.
            fa, fb = fabric_capex(a), fabric_capex(b)
            fall = 1 - b["network_capex_usd"] / a["network_capex_usd"]
            dt = b["iteration_time_s"] / a["iteration_time_s"] - 1
            rows.append(f"| {gpus:,} | ${fa / 1e6:,.1f} M | ${fb / 1e6:,.1f} M | "
                        f"{(1 - fb / fa) * 100:.1f}% | {fall * 100:.1f}% | "
                        f"{a['iteration_time_s']:.3f} s | {b['iteration_time_s']:.3f} s | "
                        f"{dt * 100:+.2f}% |")
    return "\n".join(rows)


def evaluate_file(cli, scenario, tmp, name):
    path = os.path.join(tmp, name + ".json")
    json.dump(scenario, open(path, "w"))
    return run_json(cli, "evaluate", path)


def preset(name):
    return json.load(open(os.path.join(ROOT, "presets", name + ".json")))


def presets_table(cli):
    """Each preset beside the figure its own paper publishes (None: no paper runs it)."""
    # Narayanan et al. 2021, Table 1, 175B on 1,024 A100: 140 TFLOP/s per GPU of 312 counted
    # with the paper's eq. 3 (which includes the recomputed forward): iteration time from eq. 3.
    g = preset("gpt3-175b-1024-a100")["workload"]
    b, s_, l, h, v = g["global_batch"], g["seq_len"], g["layers"], g["hidden"], g["vocab"]
    eq3 = 96 * b * s_ * l * h * h * (1 + s_ / (6 * h) + v / (16 * l * h))
    gpt3_s = eq3 / (1024 * 140e12)
    papers = [
        ("gpt3-175b-1024-a100", f"{gpt3_s:.1f} s (eq. 3 at 140 TFLOP/s per GPU)",
         "HFU 44.9% (140 of 312 TFLOP/s, recompute counted)", "Narayanan et al. 2021, Table 1"),
        ("llama3-405b-16k-h100", "about 6.5 s (16M tokens at 400 TFLOP/s per GPU)", "MFU 41%",
         "Dubey et al. 2024, Table 4"),
        ("deepseek-v3-moe-2048-h800", "—", "180K H800 GPU-hours per trillion tokens",
         "DeepSeek-AI 2024, section 1"),
        ("llama3-405b-two-buildings", "no published run", "", "derived from Llama 3"),
        ("rail-optimized-32k", "no published run", "", "Wang et al. 2023 setting"),
        ("rail-only-32k", "no published run", "same iteration time as the Clos, 37-75% less "
         "network cost", "Wang et al. 2023"),
        ("scale-across-100k-3-regions", "no published run", "", ""),
    ]
    rows = ["| preset | predicted iteration | published iteration | predicted MFU / HFU | "
            "predicted GPU-hours per 10^12 tokens | published | source |",
            "|---|---:|---|---:|---:|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        for name, it, other, source in papers:
            ev = evaluate_file(cli, preset(name), tmp, name)
            tokens = preset(name)["workload"]["train_tokens"]
            per_t = ev["gpu_hours"] * 1e12 / tokens
            fits = "" if ev["fits_in_memory"] else " (does not fit)"
            rows.append(f"| {name} | {ev['iteration_time_s']:.2f} s{fits} | {it} | "
                        f"{ev['mfu'] * 100:.1f}% / {ev['hfu'] * 100:.1f}% | "
                        f"{per_t / 1e3:,.0f}K | {other} | {source} |")
    return "\n".join(rows)


def goodput_table(cli):
    """Each preset's run under failures (docs/goodput.md), and the 16k preset with the hourly
    checkpoint of production practice, beside what Meta published for that job."""
    llama3 = ("7.76 (419 unexpected in 54 days); ETTR higher than 90%",
              "Dubey et al. 2024, section 3.3.4 and Table 5")
    rows = ["| preset | GPUs | interruptions per day | servers / fabric / DCI / buildings | "
            "checkpoint every | restart | ETTR | time to train | with failures | published | "
            "source |",
            "|---|---:|---:|---|---:|---:|---:|---:|---:|---|---|"]
    runs = [(name, None, llama3 if name == "llama3-405b-16k-h100" else ("", ""))
            for name in ("gpt3-175b-1024-a100", "deepseek-v3-moe-2048-h800",
                         "llama3-405b-16k-h100", "llama3-405b-two-buildings",
                         "rail-only-32k", "scale-across-100k-3-regions")]
    runs.insert(3, ("llama3-405b-16k-h100", 3600.0, ("", "")))
    # ByteRobust's size: the 16k preset's job on 9,600 GPUs (75 replicas of TP 8 x PP 16, 24
    # sequences each). Its platform restarts faster than the built-in figures: a check of the
    # order, not of the platform.
    runs.insert(4, ("llama3-405b-16k-h100", "9600",
                    ("97% ETTR over three months on 9,600 GPUs (warm standbys, in-place "
                     "restarts, hot updates)", "Wan et al. 2025, ByteRobust (SOSP), abstract")))
    with tempfile.TemporaryDirectory() as tmp:
        for name, interval_s, (published, source) in runs:
            scenario = preset(name)
            label = name
            if interval_s == "9600":
                dc = scenario["topology"]["datacenters"][0]
                dc["pods"] = [dict(dc["pods"][0], count=3),
                              dict(dc["pods"][1], domains_per_pod=48)]
                scenario["placement"]["shards"][0]["dp_replicas"] = 75
                scenario["workload"]["global_batch"] = 75 * 24
                label = f"{name} on 9,600 GPUs (ByteRobust's size)"
            elif interval_s:
                scenario["workload"]["checkpoint_interval_s"] = interval_s
                label = f"{name}, hourly checkpoint"
            ev = evaluate_file(cli, scenario, tmp, name)
            g = ev["goodput"]
            every = g["checkpoint_interval_s"]
            every_text = "never" if every is None else (
                f"{every / 60:.0f} min" if every >= 600 else f"{every:.0f} s")
            d = g["interruptions_per_day_by_domain"]
            domains = (f"{d['servers']:.2f} / {d['fabric']:.2f} / {d['dci']:.4f} / "
                       f"{d['buildings']:.4f}")
            rows.append(f"| {label} | {ev['gpus']:,} | {g['interruptions_per_day']:.1f} | "
                        f"{domains} | {every_text} | {g['restart_s'] / 60:.1f} min | {g['ettr'] * 100:.1f}% | "
                        f"{ev['time_to_train_s'] / 86400:.1f} days | "
                        f"{g['effective_time_to_train_s'] / 86400:.1f} days | {published} | "
                        f"{source} |")
    return "\n".join(rows)


def failure_domains_table(cli):
    """Llama 3 405B's pipeline split across two buildings by stage, at three distances, its
    one DCI link bare or with 1+1 optical protection: what the fibre does to the run
    (docs/goodput.md, "Failure domains")."""
    rows = ["| distance | DCI link | DCI interruptions per day | mean restart | ETTR | "
            "with failures | network capex |",
            "|---:|---|---:|---:|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as tmp:
        for km in (10.0, 100.0, 1000.0):
            for protected in (False, True):
                scenario = preset("llama3-405b-two-buildings")
                link = scenario["topology"]["dci_links"][0]
                link["distance_km"] = km
                link["optical_protection"] = protected
                ev = evaluate_file(cli, scenario, tmp, "domains")
                g = ev["goodput"]
                rows.append(f"| {km:,.0f} km | {'1+1 protected' if protected else 'one route'} "
                            f"| {g['interruptions_per_day_by_domain']['dci']:.4f} | "
                            f"{g['restart_s'] / 60:.1f} min | {g['ettr'] * 100:.2f}% | "
                            f"{g['effective_time_to_train_s'] / 86400:.2f} days | "
                            f"${ev['network_capex_usd'] / 1e6:,.1f}M |")
    return "\n".join(rows)


def run_cost_table(cli):
    """Each preset's cost per GPU-hour and its run's cost with failures (docs/run-cost.md), the
    same GPU-hours rented at DeepSeek's $2 per GPU-hour, and the GPU-hours DeepSeek-V3's report
    and Llama 3.1's model card give."""
    deepseek = ("2,664K GPU-hours, $5.328M at $2 per GPU-hour (pre-training)",
                "DeepSeek-V3 technical report (arXiv 2412.19437), Table 1")
    llama3 = ("30.84M GPU-hours (the whole training, post-training included)",
              "Llama 3.1 model card, Training Energy Use")
    rows = ["| preset | GPUs | IT load | per GPU-hour | hardware / colocation / energy | "
            "run with failures | GPU-hours with failures | rented at $2 per GPU-hour | "
            "published | source |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    builtin_economics = json.load(open(os.path.join(ROOT, "resources/catalog.json")))["economics"]
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("gpt3-175b-1024-a100", "deepseek-v3-moe-2048-h800", "llama3-405b-16k-h100",
                     "llama3-405b-two-buildings", "scale-across-100k-3-regions"):
            scenario = preset(name)
            ev = evaluate_file(cli, scenario, tmp, name)
            c = ev["run_cost"]
            rented = copy.deepcopy(scenario)
            economics = copy.deepcopy(builtin_economics)
            economics["rental_usd_per_gpu_hour"] = 2.0
            economics["rental_source"] = "DeepSeek-V3's assumed H800 rental price"
            rented.setdefault("catalog", {})["economics"] = economics
            r = evaluate_file(cli, rented, tmp, name + "-rented")["run_cost"]
            hour = c["usd_per_hour"]
            shares = " / ".join(f"{100 * c[k] / hour:.0f}%" for k in (
                "ownership_usd_per_hour", "facility_usd_per_hour", "energy_usd_per_hour"))
            published, source = {"deepseek-v3-moe-2048-h800": deepseek,
                                 "llama3-405b-16k-h100": llama3}.get(name, ("", ""))
            rows.append(f"| {name} | {ev['gpus']:,} | {c['it_power_w'] / 1e6:.1f} MW | "
                        f"${c['usd_per_gpu_hour']:.2f} | {shares} | "
                        f"${c['effective_run_cost_usd'] / 1e6:,.1f}M | "
                        f"{ev['goodput']['effective_gpu_hours'] / 1e3:,.0f}K | "
                        f"${r['effective_run_cost_usd'] / 1e6:,.2f}M | {published} | {source} |")
    return "\n".join(rows)


def loose_sync_table(cli):
    """Synchronous data parallelism against DiLoCo and Streaming DiLoCo (docs/loose-sync.md) on
    Llama 3 405B with 64 replicas in each of two buildings 800 km apart (16 x 400G), and on the
    100k preset's three regions, beside the papers' communication reductions."""
    two = preset("llama3-405b-two-buildings")
    two["placement"]["shards"] = [{"dp_replicas": 64, "stage_datacenters": [0] * 16},
                                  {"dp_replicas": 64, "stage_datacenters": [1] * 16}]
    two["topology"]["dci_links"][0]["distance_km"] = 800.0
    two["topology"]["dci_links"][0]["wavelengths"] = 16
    schemes = [
        ("synchronous", None, ""),
        ("DiLoCo, H 30, bf16", {"scheme": "diloco", "inner_steps": 30, "outer_gradient_bits": 16},
         ""),
        ("DiLoCo, H 100, bf16", {"scheme": "diloco", "inner_steps": 100,
                                 "outer_gradient_bits": 16}, ""),
        ("DiLoCo, H 100, int8", {"scheme": "diloco", "inner_steps": 100, "outer_gradient_bits": 8},
         "INTELLECT-1: 400x less than DP (H 100, int8 against fp32; arXiv 2412.01152)"),
        ("Streaming DiLoCo, H 100, 4-bit, tau 1",
         {"scheme": "streaming-diloco", "inner_steps": 100, "outer_gradient_bits": 4,
          "overlap_steps": 1},
         "Streaming DiLoCo: 400x fewer bits (H 100, E3M0 against bf16; arXiv 2501.18512 Table 1)"),
    ]
    rows = ["| job | scheme | iteration | DCI per iteration | less than synchronous | "
            "outer step (exposed a step) | loss at equal tokens | steps to the same loss | ETTR | "
            "with failures | published |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    jobs = [("405B, 2 x 64 replicas, 800 km", two),
            ("scale-across-100k-3-regions", preset("scale-across-100k-3-regions"))]
    with tempfile.TemporaryDirectory() as tmp:
        for job, base in jobs:
            sync_bytes = None
            for label, sync, published in schemes:
                scenario = json.loads(json.dumps(base))
                if sync:
                    scenario["parallelism"]["datacenter_sync"] = sync
                ev = evaluate_file(cli, scenario, tmp, "loose")
                dci = sum(t["bytes_per_iteration"] for t in ev["traffic"]
                          if t.get("link_class") == "dci")
                if sync_bytes is None:
                    sync_bytes = dci
                d = ev["datacenter_sync"]
                g = ev["goodput"]
                outer = (f"{d['outer_step_s']:.2f} s ({d['outer_exposed_s'] * 1e3:.1f} ms)"
                         if sync else "")
                fits = "" if ev["fits_in_memory"] else " (does not fit)"
                rows.append(
                    f"| {job} | {label} | {ev['iteration_time_s']:.2f} s{fits} | "
                    f"{dci / 1e9:,.0f} GB | "
                    f"{(sync_bytes / dci if dci > 0 else 0):,.0f}x | {outer} | "
                    f"{d['loss_ratio']:.4f} | {d['compute_multiplier']:.2f}x | "
                    f"{g['ettr'] * 100:.1f}% | {g['effective_time_to_train_s'] / 86400:.1f} days | "
                    f"{published} |")
    return "\n".join(rows)


# One-way DCI latency to fibre length: 4.897 us/km (ITU-T G.652 group index 1.468) after the
# link's equipment latency (network-physics.md A0).
def km_for_latency(latency_s, equipment_s):
    return max(0.1, (latency_s - equipment_s) / 4.897e-6)


def geopipe_table(cli):
    """Plain 1F1B vs the DCI-aware schedule (extra in-flight micro-batches before the DCI
    boundary, the most that still fit in HBM and help) on the two-building preset, with the
    pipeline split between the buildings, against DCI latency and capacity."""
    base = preset("llama3-405b-two-buildings")
    base["schedule"] = {"kind": "1f1b", "extra_in_flight_at_dci": 0}
    base["parallelism"]["virtual_stages"] = 1
    p = base["parallelism"]["pp"]
    rows = ["| one-way latency | DCI capacity | 1F1B bubble | 1F1B iteration | extra in flight | "
            "aware bubble | aware iteration | cross-DC bubble cut | iteration cut |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as tmp:
        # The same pipeline over an ideal link (100 m, no equipment, 16x the wavelengths): the
        # bubble the schedule has without what the DCI adds.
        ideal = copy.deepcopy(base)
        link = ideal["topology"]["dci_links"][0]
        link["distance_km"], link["equipment_latency_s"] = 0.1, 0.0
        link["wavelengths"] *= 16
        home = evaluate_file(cli, ideal, tmp, "ideal")["bubble_ratio"]
        for latency in (0.1e-3, 1e-3, 3e-3, 10e-3):
            for waves in (8, 64):
                sc = copy.deepcopy(base)
                link = sc["topology"]["dci_links"][0]
                link["distance_km"] = km_for_latency(latency, link["equipment_latency_s"])
                link["wavelengths"] = waves
                plain = evaluate_file(cli, sc, tmp, "plain")
                best, best_k = plain, 0
                for k in range(1, 2 * p + 1):
                    sc["schedule"]["extra_in_flight_at_dci"] = k
                    ev = evaluate_file(cli, sc, tmp, "aware")
                    if not ev["fits_in_memory"]:
                        break
                    if ev["iteration_time_s"] < best["iteration_time_s"] * (1 - 1e-4):
                        best, best_k = ev, k
                cap = waves * link["Gbps_per_wavelength"] / 1000
                b0, b1 = plain["bubble_ratio"], best["bubble_ratio"]
                t0, t1 = plain["iteration_time_s"], best["iteration_time_s"]
                cut = (b0 - b1) / (b0 - home) if b0 > home else 0.0
                rows.append(f"| {latency * 1e3:g} ms | {cap:.1f} Tb/s | {b0 * 100:.1f}% | "
                            f"{t0:.2f} s | {best_k} | {b1 * 100:.1f}% | {t1:.2f} s | "
                            f"{cut * 100:.1f}% | {(1 - t1 / t0) * 100:.1f}% |")
    rows.append(f"\nThe same pipeline over an ideal link: bubble {home * 100:.1f}%. The cross-DC "
                "bubble is what the DCI adds to it; the cut is the aware schedule's share of "
                "that removed.")
    return "\n".join(rows)


def explore_table(cli):
    rows = ["| preset | space (points) | evaluated | ranked | preset's time (s) | best (s) | "
            "best vs preset | preset's rank |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name in sorted(os.listdir(os.path.join(ROOT, "presets"))):
        if not name.endswith(".json"):
            continue
        r = run_json(cli, "sweep", os.path.join(ROOT, "presets", name))
        c = r["counts"]
        base_s = r["base"]["evaluation"]["iteration_time_s"]
        best_s = r["top"][0]["evaluation"]["iteration_time_s"] if r["top"] else None
        best = f"{best_s:.3f}" if best_s else "none fits"
        ratio = f"{best_s / base_s:.3f}x" if best_s else ""
        rows.append(f"| {name[:-5]} | {c['space_points']:,} | {c['evaluated']:,} | "
                    f"{c['feasible']:,} | {base_s:.3f} | {best} | {ratio} | {r['base_rank']} |")
    return "\n".join(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(ROOT, "build/release/app/archipelago-cli"))
    ap.add_argument("--write", action="store_true", help="replace the tables in README.md")
    args = ap.parse_args()
    tables = {
        "validation": validation_table(
            args.cli, os.path.join(ROOT, "../shared/validation/v2/published-runs.json"),
            "A100, calibration set")
        + "\n\n" + validation_table(
            args.cli, os.path.join(ROOT, "../shared/validation/v2/published-runs-h100-megascale.json"),
            "MegaScale A100 and DGX Cloud H100, calibration set")
        + "\n\n" + validation_table(args.cli, os.path.join(ROOT, "tests/data/hopper-runs.json"),
                                    "Llama 3 405B on H100, not in the set"),
        "rail-only": rail_table(args.cli),
        "presets": presets_table(args.cli),
        "geopipe": geopipe_table(args.cli),
        "explore": explore_table(args.cli),
        "scale-across": scale_across.table(args.cli),
        "goodput": goodput_table(args.cli),
        "failure-domains": failure_domains_table(args.cli),
        "loose-sync": loose_sync_table(args.cli),
        "run-cost": run_cost_table(args.cli),
    }
    if not args.write:
        for name, table in tables.items():
            print(f"## {name}\n\n{table}\n")
        return
    readme_path = os.path.join(ROOT, "README.md")
    readme = open(readme_path).read()
    for name, table in tables.items():
        pattern = re.compile(rf"(<!-- table:{name} -->\n).*?(\n<!-- /table:{name} -->)", re.S)
        if not pattern.search(readme):
            sys.exit(f"README.md has no <!-- table:{name} --> markers")
        readme = pattern.sub(lambda m: m.group(1) + table + m.group(2), readme)
    open(readme_path, "w").write(readme)


if __name__ == "__main__":
    main()
