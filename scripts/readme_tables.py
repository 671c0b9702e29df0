#!/usr/bin/env python3
"""Regenerates the tables in README.md from archipelago-cli (never by hand).

    scripts/readme_tables.py [--cli build/release/app/archipelago-cli] [--write]

Tables: predicted vs measured iteration time on ../shared/validation/published-runs.json,
tests/data/hopper-runs.json and ../shared/validation/published-runs-h100-megascale.json;
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_json(cli, *args):
    out = subprocess.run([cli, *args, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(args)} failed:\n{out.stderr}")
    return json.loads(out.stdout)


def validation_table(cli, path, label):
    report = run_json(cli, "validate", path)
    rows = [f"| run ({label}) | measured (s) | predicted (s) | error |", "|---|---:|---:|---:|"]
    for run in report["runs"]:
        rows.append(f"| {run['id']} | {run['measured_s']:.3f} | {run['predicted_s']:.3f} | "
                    f"{run['error'] * 100:+.1f}% |")
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(ROOT, "build/release/app/archipelago-cli"))
    ap.add_argument("--write", action="store_true", help="replace the tables in README.md")
    args = ap.parse_args()
    tables = {
        "validation": validation_table(
            args.cli, os.path.join(ROOT, "../shared/validation/published-runs.json"), "A100")
        + "\n\n" + validation_table(args.cli, os.path.join(ROOT, "tests/data/hopper-runs.json"),
                                    "H100, tuning set")
        + "\n\n" + validation_table(
            args.cli, os.path.join(ROOT, "../shared/validation/published-runs-h100-megascale.json"),
            "MegaScale A100 and DGX Cloud H100, not calibrated on"),
        "rail-only": rail_table(args.cli),
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
