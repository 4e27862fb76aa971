#!/usr/bin/python3
"""Issue 29's du chart: time and peak RSS against entries, 1M to 50M, for
dents du -s and the du peers, with a peer killed by the memory cap marked.

usage: /usr/bin/python3 bench/duchart.py [TSV [OUT_DIR [PNG]]]
defaults: docs/bench/scale-du.tsv bench/out docs/bench/scale-du.png

Two sources, drawn with different markers:
- TSV: runs, one a line, tab-separated with a header: tool, entries,
  temp (cold, hot), elapsed_s, cpu_s (user + system), user_s, sys_s
  (empty where only the sum was recorded), peak_rss_kib, status (ok, or
  what ended the run, e.g. the cap's OOM kill), source (free text: the
  session and how it ran).  The 50M runs are single cold runs (one takes
  5-15 minutes), each under a 10 GiB memory cap; the earlier hot rows
  are medians copied from docs/history/benchmarks.md.
- OUT_DIR: the hot rounds of `bench/run.sh scale` (scale-gNm-du), read by
  bench/scalechart.py's load: medians of the rounds.  Such a point
  replaces the TSV's row of the same tool, entries and temp (the TSV
  holds copies of the hot medians, for a clone without bench/out).
Prints a markdown table of every point: elapsed, CPU (user + system),
peak RSS, and elapsed and CPU per entry.

Needs matplotlib (Debian: python3-matplotlib, hence /usr/bin/python3).
"""
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scalechart  # noqa: E402

GRID = scalechart.FAMILIES["grid"]


def points(tsv, out):
    """[{tool, entries, temp, elapsed, cpu, rss (KiB or None), status, source}]"""
    pts = []
    if tsv and os.path.exists(tsv):
        with open(tsv) as f:
            for r in csv.DictReader(f, delimiter="\t"):
                pts.append(
                    dict(
                        tool=r["tool"],
                        entries=int(r["entries"]),
                        temp=r["temp"],
                        elapsed=float(r["elapsed_s"]),
                        cpu=float(r["cpu_s"]),
                        rss=int(r["peak_rss_kib"]) if r["peak_rss_kib"] else None,
                        status=r["status"],
                        source=r["source"],
                    )
                )
    if out and os.path.isdir(out):
        runs = scalechart.load(out)
        fresh = []
        for c in GRID:
            cmds = runs.get((c, "du"))
            e = scalechart.entries(out, c)
            if not cmds or not e:
                continue
            for name, d in cmds.items():
                if not d["wall"]:
                    continue
                fresh.append(
                    dict(
                        tool=name,
                        entries=e,
                        temp="hot",
                        elapsed=statistics.median(d["wall"]),
                        cpu=statistics.median(d["cpu"]),
                        rss=d["rss"],
                        status="ok",
                        source=f"{out}: median of {len(d['wall'])} hot runs",
                    )
                )
        # A point of OUT_DIR replaces the TSV's of the same tool, size and
        # temperature (the TSV keeps a copy of the rounds it was made from).
        seen = {(p["tool"], p["entries"], p["temp"]) for p in fresh}
        pts = [p for p in pts if (p["tool"], p["entries"], p["temp"]) not in seen] + fresh
    return pts


def table(pts):
    lines = [
        "| tool | entries | temp | elapsed | CPU (user + sys) | peak RSS | elapsed an entry | CPU an entry | status |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for p in sorted(pts, key=lambda p: (p["entries"], p["temp"], p["tool"])):
        rss = f"{p['rss'] / 1024:,.1f} MB" if p["rss"] else "?"
        e = p["entries"]
        lines.append(
            f"| {p['tool']} | {e:,} | {p['temp']} | {p['elapsed']:.1f} s | {p['cpu']:.1f} s | {rss} "
            f"| {p['elapsed'] / e * 1e6:.2f} µs | {p['cpu'] / e * 1e6:.2f} µs | {p['status']} |"
        )
    return "\n".join(lines)


def chart(pts, png):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tools = []
    for p in pts:
        if p["tool"] not in tools:
            tools.append(p["tool"])
    colors = {t: f"C{i % 10}" for i, t in enumerate(tools)}
    fig, axes = plt.subplots(1, 3, figsize=(18, 5.5))
    panels = [
        ("elapsed", "elapsed (s)", lambda p: p["elapsed"]),
        ("cpu", "CPU, user + system (s)", lambda p: p["cpu"]),
        ("rss", "peak RSS (MB)", lambda p: p["rss"] / 1024 if p["rss"] else None),
    ]
    for ax, (_key, label, get) in zip(axes, panels):
        marked = 0  # killed points so far on this panel: their notes stacked
        for t in tools:
            for temp, marker, ls in (("hot", "o", "-"), ("cold", "s", "--")):
                sel = sorted(
                    (p for p in pts if p["tool"] == t and p["temp"] == temp and get(p) is not None),
                    key=lambda p: p["entries"],
                )
                ok = [p for p in sel if p["status"] == "ok"]
                if ok:
                    ax.plot(
                        [p["entries"] for p in ok],
                        [get(p) for p in ok],
                        marker=marker,
                        linestyle=ls,
                        color=colors[t],
                        linewidth=2.5 if t.startswith("dents") else 1.2,
                        label=f"{t}, {temp}",
                    )
                for p in sel:
                    if p["status"] != "ok":
                        ax.plot(p["entries"], get(p), marker="X", markersize=12, color=colors[t], linestyle="")
                        ax.annotate(
                            f"{t}: {p['status']}",
                            (p["entries"], get(p)),
                            textcoords="offset points",
                            xytext=(-8, 6 - 11 * marked),
                            ha="right",
                            fontsize=7,
                            color=colors[t],
                        )
                        marked += 1
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(5e5, 1e8)
        ax.set_xlabel("entries (grid: T x 1,000 x 1,000 empty files)")
        ax.set_ylabel(label)
        ax.set_title(f"du -s: {label}")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.suptitle("du -s from 1M to 50M entries: hot rounds (o, solid), single cold runs (s, dashed), X = did not finish")
    fig.tight_layout()
    os.makedirs(os.path.dirname(png) or ".", exist_ok=True)
    fig.savefig(png, dpi=90)


def main():
    tsv = sys.argv[1] if len(sys.argv) > 1 else "docs/bench/scale-du.tsv"
    out = sys.argv[2] if len(sys.argv) > 2 else "bench/out"
    png = sys.argv[3] if len(sys.argv) > 3 else "docs/bench/scale-du.png"
    pts = points(tsv, out)
    if not pts:
        sys.exit(f"duchart: no points in {tsv} nor {out}")
    print(table(pts))
    chart(pts, png)
    print(f"\n(chart: {png})", file=sys.stderr)


if __name__ == "__main__":
    main()
