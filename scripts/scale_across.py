#!/usr/bin/env python3
"""The scale-across comparison (README "The explorer across buildings"): a production-style
baseline against the explorer's best, and the best of each single dimension.

    scripts/scale_across.py [--cli build/release/app/archipelago-cli]

Baseline, as a competent team launches the job with Megatron-LM: its default rank order
(tp-cp-ep-dp-pp), whole data-parallel replicas per datacenter (DP crosses every boundary), the
interleaved 1F1B schedule with the virtual stages such a team tunes (the best of 2 to 8 chunks
per rank that the layer split allows, as NeMo's recipes do: GPT-3 175B at PP 8 runs 12, Llama 3
70B at PP 4 runs 5), NCCL's default settings on the DCI, the transport as the scenario gives
it, and the scenario's own TP, CP, PP, EP, micro-batch, recompute and optimizer sharding. A
1F1B column (v = 1) is kept as a labelled reference only: nobody runs 16 stages that way.
Hardware stays the scenario's everywhere (wavelengths and fabric fixed): every row compares
jobs on the same network.

Searches, each a `sweep --space` around the baseline:
  placement only   rank order x which dimension crosses the boundary x the stage split
  schedule only    every schedule x virtual stages x the DCI-aware extra in-flight
  transport only   every DCI transport
  joint            the three together, degrees fixed
  full             the joint space plus TP, PP, micro-batch, recompute, ZeRO and the
                   distributed optimizer (the explorer's default ranges)
"""
import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RANK_ORDERS = ["tp-cp-ep-dp-pp", "tp-cp-ep-pp-dp", "tp-dp-cp-ep-pp", "tp-pp-cp-ep-dp"]
SCHEDULES = ["gpipe", "1f1b", "interleaved-1f1b", "zb-h1", "zb-h2", "dualpipe"]
TRANSPORTS = ["rdma-otn", "roce-pfc", "lossy-ip"]
# The chunks per rank a Megatron-LM user tunes over (virtual_pipeline_model_parallel_size).
BASELINE_VIRTUAL_STAGES = [2, 3, 4, 6, 8]


def load(name):
    with open(os.path.join(ROOT, "presets", name)) as f:
        return json.load(f)


def at_distance(scenario, km):
    s = copy.deepcopy(scenario)
    for link in s["topology"]["dci_links"]:
        link["distance_km"] = float(km)
    s["name"] = f"{scenario['name']} at {km} km"
    return s


def baseline_space(s):
    par = s["parallelism"]
    return {
        "tp": [par["tp"]], "cp": [par["cp"]], "pp": [par["pp"]], "ep": [par["ep"]],
        "dp": ["max"],
        "micro_batch": [par["micro_batch"]],
        "sequence_parallel": [par.get("sequence_parallel", False)],
        "recompute": [par["recompute"]],
        "zero_stage": [par["zero_stage"]],
        "distributed_optimizer": [par["distributed_optimizer"]],
        "rank_order": [RANK_ORDERS[0]],
        "boundary": ["dp"],
        "stage_split": [0],
        "schedule": ["interleaved-1f1b"],
        "virtual_stages": BASELINE_VIRTUAL_STAGES,
        "extra_in_flight_at_dci": [0],
        "dci_transport": ["base"],
        "wavelengths": ["base"],
        "fabric": ["base"],
    }


def spaces(s):
    base = baseline_space(s)
    reference = dict(base, schedule=["1f1b"], virtual_stages=[1])
    placement = dict(base, rank_order=RANK_ORDERS, boundary=["dp", "pp"],
                     stage_split=[0, -2, -1, 1, 2])
    schedule = dict(base, schedule=SCHEDULES, virtual_stages=[1, 2, 3, 4, 6, 8],
                    extra_in_flight_at_dci=[0, 1, 2, 4])
    transport = dict(base, dci_transport=TRANSPORTS)
    joint = dict(base)
    for d in (placement, schedule, transport):
        for k in ("rank_order", "boundary", "stage_split", "schedule", "virtual_stages",
                  "extra_in_flight_at_dci", "dci_transport"):
            if len(d[k]) > 1:
                joint[k] = d[k]
    full = dict(joint)
    for k in ("tp", "pp", "micro_batch", "recompute", "zero_stage", "distributed_optimizer",
              "sequence_parallel"):
        full.pop(k)  # the explorer's default range for the scenario
    return {"baseline": base, "reference": reference, "placement": placement, "schedule": schedule,
            "transport": transport, "joint": joint, "full": full}


def sweep(cli, scenario_path, space, tmp, name):
    space_path = os.path.join(tmp, name + ".space.json")
    with open(space_path, "w") as f:
        json.dump(space, f)
    out = subprocess.run([cli, "sweep", scenario_path, "--space", space_path, "--json",
                          "--top", "1"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"sweep {name} failed:\n{out.stderr}")
    r = json.loads(out.stdout)
    if not r["top"]:
        return None, r
    return r["top"][0], r


def time_of(point):
    return point["evaluation"]["iteration_time_s"] if point else None


def describe(p):
    placement = f"{p['boundary'].upper()} across, {p['rank_order']}"
    if p["boundary"] == "pp" and p.get("stage_split", 0):
        placement += f", split {p['stage_split']:+d}"
    schedule = p["schedule"]
    if p["schedule"] in ("interleaved-1f1b",) and p["virtual_stages"] > 1:
        schedule += f" v{p['virtual_stages']}"
    if p.get("extra_in_flight_at_dci", 0):
        schedule += f" +{p['extra_in_flight_at_dci']} in flight"
    degrees = f"TP {p['tp']} PP {p['pp']} DP {p['data_parallel']} mb {p['micro_batch']}"
    return placement, schedule, p["dci_transport"], degrees


def rows(cli):
    two = load("llama3-405b-two-buildings.json")
    cases = [("two buildings, 10 km (preset)", two)]
    for km in (100, 500, 1000):
        cases.append((f"two buildings, {km} km", at_distance(two, km)))
    cases.append(("100k GPUs, 3 regions (preset)", load("scale-across-100k-3-regions.json")))
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, s) in enumerate(cases):
            path = os.path.join(tmp, f"case{i}.json")
            with open(path, "w") as f:
                json.dump(s, f)
            results = {}
            for name, space in spaces(s).items():
                results[name], full = sweep(cli, path, space, tmp, f"case{i}-{name}")
                results["preset"] = full["base"]  # the scenario as given, same every sweep
            out.append((label, results))
    return out


def speedup(base_s, s):
    return (base_s / s - 1.0) * 100.0 if base_s and s else None


def table(cli):
    lines = ["| scenario | as given (s) | 1F1B reference (s) | baseline (s) | placement only | "
             "schedule only | transport only | joint | full search | full search's winner |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for label, r in rows(cli):
        base_s = time_of(r["baseline"])
        if base_s is None:
            lines.append(f"| {label} | | | does not fit | | | | | | |")
            continue

        def cell(name):
            t = time_of(r[name])
            return "—" if t is None else f"{t:.2f} s ({speedup(base_s, t):+.1f}%)"

        ref = time_of(r["reference"])
        ref_cell = "—" if ref is None else f"{ref:.2f}"

        win = r["full"]
        placement, schedule, transport, degrees = describe(win)
        lines.append(f"| {label} | {time_of(r['preset']):.2f} | {ref_cell} | {base_s:.2f} | "
                     f"{cell('placement')} | {cell('schedule')} | "
                     f"{cell('transport')} | {cell('joint')} | {cell('full')} | "
                     f"{placement}; {schedule}; {transport}; {degrees} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(ROOT, "build/release/app/archipelago-cli"))
    args = ap.parse_args()
    print(table(args.cli))


if __name__ == "__main__":
    main()
