#!/usr/bin/env python3
"""One line per kernel (its first launch of each grid size) of an Nsight Compute `--page details
--csv` export: duration, DRAM / L1 / L2 throughput and issue slots (% of peak), hit rates,
registers, achieved and theoretical occupancy; then each kernel's estimated-speedup rules (what
Nsight Compute says limits it). The verb is the function holding the kernel's lambda.
    python3 scripts/device/ncu-summary.py gpu-out/detail.csv"""
import csv
import re
import sys

rows = [line for line in open(sys.argv[1]) if line.startswith('"')]
kernels, rules = {}, {}
for r in csv.DictReader(rows):
    k = kernels.setdefault(r["ID"], {"name": r["Kernel Name"], "grid": r["Grid Size"]})
    if r["Metric Name"]:
        k[r["Metric Name"]] = r["Metric Value"]
    if r.get("Rule Name") and r.get("Estimated Speedup"):
        rules.setdefault(r["ID"], set()).add((r["Rule Name"], r["Estimated Speedup"]))
columns = [("Duration", "us", 1e-3), ("DRAM Throughput", "dram%", 1), ("L1/TEX Cache Throughput", "l1%", 1),
           ("L2 Cache Throughput", "l2%", 1), ("Issue Slots Busy", "issue%", 1), ("L1/TEX Hit Rate", "l1hit", 1),
           ("L2 Hit Rate", "l2hit", 1), ("Registers Per Thread", "regs", 1), ("Achieved Occupancy", "occ%", 1),
           ("Theoretical Occupancy", "theo%", 1)]
print(f"{'id':>4} {'verb':24s} {'grid':>14s} " + " ".join(f"{c[1]:>7s}" for c in columns))
seen = set()
for i, k in sorted(kernels.items(), key=lambda t: int(t[0])):
    verbs = re.findall(r"::(\w+)\((?:[^()]|\([^()]*\))*\)::\[lambda", k["name"])
    verb = verbs[-1] if verbs else k["name"][:24]
    if (verb, k["grid"]) in seen:
        continue
    seen.add((verb, k["grid"]))
    values = []
    for metric, _, scale in columns:
        try:
            values.append(f"{float(k.get(metric, '').replace(',', '')) * scale:7.1f}")
        except ValueError:
            values.append(f"{'-':>7s}")
    print(f"{i:>4} {verb:24s} {k['grid']:>14s} " + " ".join(values))
    for name, speedup in sorted(rules.get(i, ()), key=lambda t: -float(t[1].replace(',', '') or 0))[:3]:
        print(f"{'':44s} {name}: {speedup} % estimated speedup")
