#!/usr/bin/python3
"""Bar chart of median times per command, hot and cold, one panel per group.

usage: /usr/bin/python3 bench/chart.py [RESULTS_JSON [PNG [GROUP...]]]
defaults: bench/out/results.json docs/bench/ls.png ls-ext4 ls-xfs

Needs matplotlib (Debian: python3-matplotlib, hence /usr/bin/python3).
Times on a log scale: the tools span two orders of magnitude.
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# Panel titles by group ID; other groups are titled by their ID.
TITLES = {
    "ls-ext4": "ext4: 1,000,000 files, output to a file",
    "ls-xfs": "xfs: 1,000,000 files, output to a file",
    "threshold-1m": "ext4: 1,000,000 files, by threads and slices",
    "noft-flat": "ext4 -O ^filetype: 1,000,000 files + 1 directory",
    "noft-shape": "ext4 -O ^filetype: shape of /usr and toolchains",
    "tree-shape-false": "shape of /usr and toolchains (~430k): -false",
    "tree-shape-size": "shape (~430k): -size +1M",
    "tree-shape-print": "shape (~430k): print every path",
    "tree-shape-quit": "shape (~430k): a name at depth 3, -quit",
    "tree-shape-jobs": "shape (~430k): -false by threads",
    "tree-home-false": "synthetic home (~2.1M): -false",
    "tree-home-size": "synthetic home (~2.1M): -size +1M",
    "tree-flat1m-print": "ext4: one directory of 1M files, print",
    "printf-shape": "shape (~430k): -printf '%p %s %TY-%Tm-%Td\\n'",
    "exec-files100k": "100 directories of 1,000 files: -exec /bin/true {} +",
    "du-shape": "du: shape of /usr and toolchains (~405k)",
    "du-home": "du: synthetic home (~2.1M), hot only",
    "du-flat1m": "du: ext4, one directory of 1M files",
    "lsterm-shape-R": "ls -R: shape (~405k)",
    "lsterm-shape-color": "ls -R --color=always -C: shape (~405k)",
    "lsterm-flat1m-color": "ls --color=always -C: ext4, 1M files",
}

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def label(t):
    return f"{t * 1e3:.0f} ms" if t < 1 else f"{t:.1f} s"


def main() -> None:
    args = sys.argv[1:]
    src = args[0] if args else os.path.join(ROOT, "bench/out/results.json")
    png = args[1] if len(args) > 1 else os.path.join(ROOT, "docs/bench/ls.png")
    wanted = args[2:] or ["ls-ext4", "ls-xfs"]
    with open(src) as f:
        data = json.load(f)
    groups = {g["id"]: g for g in data["groups"]}
    wanted = [w for w in wanted if w in groups]
    n = max(len(groups[w]["commands"]) for w in wanted)
    fastest = min(c[t]["median"] for w in wanted for c in groups[w]["commands"]
                  for t in ("hot", "cold") if c.get(t))
    slowest = max(c[t]["median"] for w in wanted for c in groups[w]["commands"]
                  for t in ("hot", "cold") if c.get(t))
    ncols = min(2, len(wanted))
    nrows = (len(wanted) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.6 * ncols, (0.42 * n + 1.3) * nrows),
                             squeeze=False)
    for ax in axes.flat[len(wanted):]:
        ax.set_visible(False)
    for ax, gid in zip(axes.flat, wanted):
        cmds = groups[gid]["commands"]
        for k, (temp, color, dy) in enumerate((("hot", "#e6550d", -0.2), ("cold", "#3182bd", 0.2))):
            ys, xs = [], []
            for i, c in enumerate(cmds):
                if c.get(temp):
                    ys.append(i + dy)
                    xs.append(c[temp]["median"])
            ax.barh(ys, xs, height=0.4, color=color, label=temp)
            for y, x in zip(ys, xs):
                ax.text(x * 1.05, y, label(x), va="center", fontsize=6.5)
        ax.set_yticks(range(len(cmds)))
        ax.set_yticklabels([c["name"] for c in cmds], fontsize=8)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlim(left=fastest / 2, right=slowest * 4)
        ax.set_xlabel("median seconds, log scale", fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        ax.set_title(TITLES.get(gid, gid), fontsize=9)
        ax.grid(axis="x", which="major", alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    env = data.get("env", {})
    fig.suptitle(f"dents vs peers, {env.get('nproc', '?')} cores, kernel {env.get('kernel', '?')}"
                 f" ({env.get('date', '')})", fontsize=9)
    fig.tight_layout()
    os.makedirs(os.path.dirname(png) or ".", exist_ok=True)
    fig.savefig(png, dpi=90)
    print(f"{png}: {os.path.getsize(png)} bytes")


if __name__ == "__main__":
    main()
