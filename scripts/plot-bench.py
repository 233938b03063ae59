#!/usr/bin/env python3
"""Plots the JSON written by `fem bench` (matplotlib, Debian's python3-matplotlib).

    plot-bench.py OUT/bench.json [--output DIR] [--title TEXT]

Writes into DIR (default: the JSON's folder) and prints the path of each file made:
  throughput.png  element-steps per second per backend and precision (bars; with a size sweep,
                  at the largest size)
  scaling.png     with a size sweep: element-steps per second against element count, log axes
Several JSON files may be given (for example this machine's and the GPU machine's); their runs
are plotted together, labelled by machine when they differ.
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(paths):
    runs, meta = [], []
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        meta.append(data)
        for r in data["runs"]:
            if r["status"] == "ok" and r["element_steps_per_s"]:
                r = dict(r)
                r["machine"] = data.get("machine", "")
                runs.append(r)
    return runs, meta


def series_name(r, several_machines):
    name = r["label"]
    if several_machines:
        name += " (" + r["machine"].split(",")[0] + ")"
    return name


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", nargs="+")
    ap.add_argument("--output", default=None)
    ap.add_argument("--title", default=None)
    args = ap.parse_args()
    out = args.output or os.path.dirname(os.path.abspath(args.json[0]))
    os.makedirs(out, exist_ok=True)
    runs, meta = load(args.json)
    if not runs:
        print("plot-bench.py: no successful runs to plot", file=sys.stderr)
        return 1
    several = len({r["machine"] for r in runs}) > 1
    title = args.title or "fem bench: " + meta[0]["name"]
    precisions = sorted({r["precision"] for r in runs}, key=lambda p: p != "single")
    written = []

    # Bar chart at the largest size of each series.
    largest = {}
    for r in runs:
        key = (series_name(r, several), r["precision"])
        if key not in largest or r["elements"] > largest[key]["elements"]:
            largest[key] = r
    names = list(dict.fromkeys(k[0] for k in largest))
    width = 0.8 / len(precisions)
    fig, ax = plt.subplots(figsize=(max(5, 1.6 * len(names) + 2), 3.6))
    for i, p in enumerate(precisions):
        xs, ys = [], []
        for j, n in enumerate(names):
            if (n, p) in largest:
                xs.append(j + (i - (len(precisions) - 1) / 2) * width)
                ys.append(largest[(n, p)]["element_steps_per_s"])
        bars = ax.bar(xs, ys, width, label=p)
        ax.bar_label(bars, labels=[f"{y:.2g}" for y in ys], fontsize=7)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names)
    ax.set_ylabel("element-steps / s")
    # CPU and GPU bars differ by up to 100x: on a linear axis the CPU bars would be invisible.
    values = [r["element_steps_per_s"] for r in largest.values()]
    if max(values) > 20 * min(values):
        ax.set_yscale("log")
    elements = sorted({r["elements"] for r in largest.values()})
    ax.set_title(f"{title}\n{', '.join(str(e) for e in elements)} elements", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out, "throughput.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)

    # Scaling curve when there are several sizes.
    if len({r["elements"] for r in runs}) > 1:
        fig, ax = plt.subplots(figsize=(6, 4))
        for key in dict.fromkeys((series_name(r, several), r["precision"]) for r in runs):
            pts = sorted(
                (r["elements"], r["element_steps_per_s"])
                for r in runs
                if (series_name(r, several), r["precision"]) == key
            )
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                    linestyle="-" if key[1] == "single" else "--", label=f"{key[0]} {key[1]}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("elements")
        ax.set_ylabel("element-steps / s")
        ax.set_title(title, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = os.path.join(out, "scaling.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
