#!/usr/bin/python3
"""Tables and charts of issue 29's scale runs (bench/run.sh scale): time
and peak RSS against the number of entries, for dents and the peers.

usage: /usr/bin/python3 bench/scalechart.py [OUT_DIR [PNG]]
defaults: bench/out docs/bench/scale.png

Reads, for every ID scale-CORPUS-WORKLOAD that run.sh left in OUT_DIR:
ID-hot-rN.json and ID-cold-rN.json (hyperfine: each run's wall time, and
the mean user and system time of each round), ID-cmds.tsv (peak RSS of
one more run) and scale-CORPUS.entries (how many entries CORPUS holds).
Prints markdown: one table per workload and temperature with, for each
command and size, the median wall time, the median over rounds of user +
system time, both per entry, and the peak RSS, then the checks issue 29
asks of dents's lines: time per entry at the largest size within 1.25x
of the smallest's, peak RSS at most 2x.  The chart has one row per hot
workload of the grid corpus: median wall time, median CPU time (user +
system) per entry and peak RSS against entries, log-scaled.  CPU time is
the panel to read when the rounds were not quiet: other tenants of the
machine stretch elapsed time, hardly CPU time.

Needs matplotlib (Debian: python3-matplotlib, hence /usr/bin/python3).
"""
import glob
import json
import os
import re
import statistics
import sys

ID = re.compile(r"scale-(?P<corpus>[a-z]+\d*m?|wide)-(?P<work>[a-z]+)-(?P<temp>hot|cold)-r\d+\.json$")
# Corpora of one family, measured at several sizes, in size order.
FAMILIES = {
    "grid": ["g1m", "g3m", "g10m", "g50m"],
    "flat": ["flat1m", "flat10m"],
    "real": ["r1m", "r10m"],
    "wide": ["wide"],
}
TITLES = {
    "false": "find -false",
    "size": "find -size +1M",
    "du": "du -s",
    "export": "ncdu export (du -o)",
    "scan": "dents scan (Parquet snapshot)",
    "pywalk": "Python: dents.walk, os.walk",
    "ls": "ls -f, ls -U of one directory",
    "lsl": "ls -l of one directory",
}
# Where a family's workload differs from the grid's.
FAMILY_TITLES = {("real", "size"): "find -size +1k"}


def title(fam, work):
    """A workload's title; WORK may end in " cold" (see load)."""
    base, cold, _ = work.partition(" cold")
    t = FAMILY_TITLES.get((fam, base), TITLES.get(base, base))
    return f"{t}, cold" if cold else t


def family_of(corpus):
    for fam, members in FAMILIES.items():
        if corpus in members:
            return fam
    return corpus


def load(out):
    """{(corpus, work): {name: {"wall": [...], "cpu": [...], "rss": KiB}}},
    work followed by " cold" for the cold runs."""
    runs = {}
    for path in sorted(glob.glob(os.path.join(out, "scale-*-r*.json"))):
        m = ID.match(os.path.basename(path))
        if not m:
            continue
        key = (m["corpus"], m["work"] + (" cold" if m["temp"] == "cold" else ""))
        with open(path) as f:
            for r in json.load(f)["results"]:
                d = runs.setdefault(key, {}).setdefault(r["command"], {"wall": [], "cpu": [], "rss": None})
                d["wall"].extend(r["times"])
                d["cpu"].append(r["user"] + r["system"])
    for key, cmds in runs.items():
        tsv = os.path.join(out, f"scale-{key[0]}-{key[1].removesuffix(' cold')}-cmds.tsv")
        if os.path.exists(tsv):
            with open(tsv) as f:
                next(f)
                for line in f:
                    name, _cmd, rss, _lines = line.rstrip("\n").split("\t")
                    if name in cmds and rss.isdigit():
                        cmds[name]["rss"] = int(rss)
    return runs


def entries(out, corpus):
    try:
        with open(os.path.join(out, f"scale-{corpus}.entries")) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def table(out, runs):
    """Markdown tables and the checks on dents's lines."""
    lines = []
    checks = []
    works = sorted({(family_of(c), w) for c, w in runs})
    for fam, work in works:
        corpora = [c for c in FAMILIES.get(fam, [fam]) if (c, work) in runs]
        names = []
        for c in corpora:
            for n in runs[(c, work)]:
                if n not in names:
                    names.append(n)
        lines.append(f"\n#### {fam}: {title(fam, work)}\n")
        head = "| command | " + " | ".join(f"{c} ({entries(out, c) or '?':,} entries)" if entries(out, c) else c for c in corpora) + " |"
        lines.append(head)
        lines.append("|---" * (len(corpora) + 1) + "|")
        for n in names:
            cells = []
            for c in corpora:
                d = runs[(c, work)].get(n)
                e = entries(out, c)
                if not d or not d["wall"]:
                    cells.append("not run")
                    continue
                wall = statistics.median(d["wall"])
                cpu = statistics.median(d["cpu"])
                rss = f"{d['rss'] / 1024:.1f} MB" if d["rss"] else "?"
                per = f"{wall / e * 1e6:.2f} µs/entry, " if e else ""
                cells.append(f"{wall:.2f} s ({per}CPU {cpu:.2f} s), {rss}")
            lines.append(f"| {n} | " + " | ".join(cells) + " |")
        if len(corpora) >= 2:
            lo, hi = corpora[0], corpora[-1]
            for n in names:
                if not n.startswith(("dents", "dents.")):
                    continue
                a, b = runs[(lo, work)].get(n), runs[(hi, work)].get(n)
                ea, eb = entries(out, lo), entries(out, hi)
                if not (a and b and ea and eb and a["wall"] and b["wall"]):
                    continue
                t = (statistics.median(b["wall"]) / eb) / (statistics.median(a["wall"]) / ea)
                c = (statistics.median(b["cpu"]) / eb) / (statistics.median(a["cpu"]) / ea)
                r = b["rss"] / a["rss"] if a["rss"] and b["rss"] else float("nan")
                # Both readings: elapsed (a quiet machine's) and CPU time
                # (a loaded one's); RSS either way.
                ok = ", ".join(
                    f"{what} {'within' if x <= 1.25 and r <= 2 else 'OUTSIDE'}" for what, x in (("wall", t), ("CPU", c))
                )
                checks.append(
                    f"| {fam} {title(fam, work)} | {n} | {lo}→{hi} | {t:.2f}× | {c:.2f}× | {r:.2f}× | {ok} |"
                )
    if checks:
        lines.append("\n#### dents's lines against issue 29's targets\n")
        lines.append("| workload | command | sizes | wall per entry | CPU per entry | peak RSS | targets (≤1.25×, ≤2×) |")
        lines.append("|---|---|---|---|---|---|---|")
        lines.extend(checks)
    return "\n".join(lines)


def chart(out, runs, png):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    works = [w for w in ["false", "size", "du", "export", "scan", "pywalk"] if any((c, w) in runs for c in FAMILIES["grid"])]
    if not works:
        return
    fig, axes = plt.subplots(len(works), 3, figsize=(17, 3.6 * len(works)), squeeze=False)
    for row, work in zip(axes, works):
        corpora = [c for c in FAMILIES["grid"] if (c, work) in runs and entries(out, c)]
        names = []
        for c in corpora:
            for n in runs[(c, work)]:
                if n not in names:
                    names.append(n)
        for n in names:
            xs, ts, cs, rs = [], [], [], []
            for c in corpora:
                d = runs[(c, work)].get(n)
                if d and d["wall"]:
                    xs.append(entries(out, c))
                    ts.append(statistics.median(d["wall"]))
                    cs.append(statistics.median(d["cpu"]) / xs[-1] * 1e6)
                    rs.append((d["rss"] or 0) / 1024)
            style = dict(marker="o", linewidth=2.5 if n.startswith("dents") else 1.2)
            row[0].plot(xs, ts, label=n, **style)
            row[1].plot(xs, cs, label=n, **style)
            row[2].plot(xs, rs, label=n, **style)
        for ax, what in zip(row, ["median wall time, hot (s)", "CPU (user + sys) per entry (µs)", "peak RSS (MB)"]):
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("entries")
            ax.set_ylabel(what)
            ax.set_title(f"grid tree: {title('grid', work)}")
            ax.grid(True, which="both", alpha=0.3)
        row[0].legend(fontsize=7)
    fig.tight_layout()
    os.makedirs(os.path.dirname(png) or ".", exist_ok=True)
    fig.savefig(png, dpi=90)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "bench/out"
    png = sys.argv[2] if len(sys.argv) > 2 else "docs/bench/scale.png"
    runs = load(out)
    if not runs:
        sys.exit(f"scalechart: no scale-*-hot-r*.json in {out}")
    print(table(out, runs))
    chart(out, runs, png)
    print(f"\n(chart: {png})", file=sys.stderr)


if __name__ == "__main__":
    main()
