#!/usr/bin/python3
"""The measured chart of issue 16: per command, the median whole command,
walk phase (the tool's own clock), CPU time of all ranks and largest
rank's peak RSS, from one bench/mpi/run.sh output directory.

usage: /usr/bin/python3 bench/mpi/bars.py OUT_DIR PNG TITLE [TEMP]
  TEMP: hot (default) or cold.  Needs matplotlib, as bench/chart.py.
"""

import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from summarize import label, load, medians  # noqa: E402


def main():
    out, png, title = sys.argv[1:4]
    temp = sys.argv[4] if len(sys.argv) > 4 else "hot"
    runs = load(out)
    rows = [(label(name, np), medians(r)) for (t, name, np), r in runs.items() if t == temp and name != "mpirun true"]
    names = [n for n, _ in rows]
    panels = [
        ("whole command (s)", [m["whole"] for _, m in rows]),
        ("walk phase, own clock (s)", [m["walk"] or 0 for _, m in rows]),
        ("CPU time, all ranks (s)", [m["cpu"] or 0 for _, m in rows]),
        ("peak RSS of the largest rank (MiB)", [m["rss"][0] for _, m in rows]),
    ]
    fig, axes = plt.subplots(1, 4, figsize=(18, 0.45 * len(names) + 2), sharey=True)
    for ax, (what, vals) in zip(axes, panels):
        ax.barh(range(len(names)), vals, color=["tab:blue" if n.startswith("dents") else "tab:orange" for n in names])
        ax.set_title(what)
        ax.grid(True, axis="x", alpha=0.3)
        for i, v in enumerate(vals):
            if v:
                ax.text(v, i, f" {v:.2f}" if v < 10 else f" {v:.0f}", va="center", fontsize=7)
    axes[0].set_yticks(range(len(names)))
    axes[0].set_yticklabels(names, fontsize=8)
    axes[0].invert_yaxis()
    fig.suptitle(f"{title} ({temp}, medians)")
    fig.tight_layout()
    fig.savefig(png, dpi=90)


if __name__ == "__main__":
    main()
