#!/usr/bin/python3
"""The scale simulation's chart: entries per second, speed-up, load
balance, termination overhead, steal requests and successful steals
against the rank count, one line per simulate.py table.

usage: /usr/bin/python3 bench/mpi/chart.py OUT.png TITLE LABEL=TABLE.tsv...
"""

import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def main():
    out, title, series = sys.argv[1], sys.argv[2], sys.argv[3:]
    panels = [
        ("entries_per_s", "entries per second", True),
        ("speedup", "speed-up over its own 1 rank", True),
        ("balance", "load balance: max / mean busy time", False),
        ("termination_ms", "termination overhead (ms)", True),
        ("requests", "steal requests", True),
        ("work_msgs", "successful steals (work messages)", True),
    ]
    fig, axes = plt.subplots(2, 3, figsize=(15, 8))
    for spec in series:
        label, path = spec.split("=", 1)
        rows = load(path)
        ranks = [int(r["ranks"]) for r in rows]
        for ax, (col, _, _) in zip(axes.flat, panels):
            # Zeros (one rank steals nothing) have no place on a log scale.
            pts = [(x, float(r[col])) for x, r in zip(ranks, rows) if float(r[col]) > 0]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
    for ax, (col, name, log) in zip(axes.flat, panels):
        ax.set_xscale("log", base=2)
        if log:
            ax.set_yscale("log")
        ax.set_xlabel("ranks")
        ax.set_title(name)
        ax.grid(True, which="both", alpha=0.3)
    top = max(int(r["ranks"]) for s in series for r in load(s.split("=", 1)[1]))
    axes[0][1].plot([1, top], [1, top], color="grey", linestyle=":", label="ideal")
    axes[0][0].legend(fontsize=8)
    axes[0][1].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=90)


if __name__ == "__main__":
    main()
