#!/usr/bin/env python3
"""Turns what bench/run.sh wrote into bench/out/results.{md,json}.

usage: summarize.py OUTDIR

Every ratio is taken between two commands of the same ID and temperature,
whose runs were interleaved in rounds (one hyperfine invocation per round):
the machine is shared and noisy, so times from different IDs are not
compared.  A median is over the runs of all rounds.
"""
import json
import os
import re
import statistics
import sys

MIB = 1024
QUIET = float(os.environ.get("QUIET", "0.15"))

# Reference commands of each group (by ID prefix): ratios are taken to these.
REFERENCES = {
    "ls-": ["ls -f", "ls -l"],
    "bufsize-": ["dents-floor 64K"],
    "threshold-": ["dents ls -j1", "slicer 1"],
}

# Issue 2's targets: (label, ID, kind, numerator, denominator, temperature, limit).
# kind "time": median ratio in one run; "rss": peak RSS ratio; "rss_abs": MiB.
TARGETS = [
    ("`dents ls` ≤ 0.5× `ls -f`, hot", "ls-ext4", "time", "dents ls", "ls -f", "hot", 0.5),
    ("`dents ls` ≤ 0.4× `ls -f`, cold", "ls-ext4", "time", "dents ls", "ls -f", "cold", 0.4),
    ("`dents ls -l` ≤ 0.2× `ls -l`, hot", "ls-ext4", "time", "dents ls -l", "ls -l", "hot", 0.2),
    ("`dents ls -l` ≤ 0.4× `ls -l`, cold", "ls-ext4", "time", "dents ls -l", "ls -l", "cold", 0.4),
    ("`dents ls -l` peak RSS ≤ 0.5× `ls -l`'s", "ls-ext4", "rss", "dents ls -l", "ls -l", None, 0.5),
    ("`dents ls` peak RSS ≤ 16 MiB", "ls-ext4", "rss_abs", "dents ls", None, None, 16.0),
    ("xfs: `dents ls` ≤ 0.6× `ls -f`, hot", "ls-xfs", "time", "dents ls", "ls -f", "hot", 0.6),
]


def fmt_time(t):
    if t is None:
        return "–"
    if t < 0.01:
        return f"{t * 1e3:.2f} ms"
    if t < 1:
        return f"{t * 1e3:.0f} ms"
    return f"{t:.2f} s"


def fmt_ratio(r):
    return "–" if r is None else f"{r:.2f}"


def load_group(out, gid):
    cmds = []
    with open(os.path.join(out, gid + "-cmds.tsv")) as f:
        next(f)
        for line in f:
            name, command, rss, lines = line.rstrip("\n").split("\t")
            cmds.append({
                "name": name,
                "command": command,
                "peak_rss_kib": int(rss) if rss.isdigit() else None,
                "output_lines": int(lines) if lines.strip().isdigit() else None,
            })
    for temp in ("hot", "cold"):
        # One hyperfine export per round: the runs of all rounds are pooled.
        times = {c["name"]: [] for c in cmds}
        rounds = 0
        pat = re.compile(re.escape(f"{gid}-{temp}-r") + r"\d+\.json$")
        for f in sorted(os.listdir(out)):
            if pat.fullmatch(f):
                rounds += 1
                with open(os.path.join(out, f)) as fh:
                    for r in json.load(fh)["results"]:
                        times[r["command"]] += r["times"]
        for c in cmds:
            t = sorted(times[c["name"]])
            c[temp] = None if not t else {
                "median": statistics.median(t), "mean": statistics.fmean(t),
                "stddev": statistics.stdev(t) if len(t) > 1 else 0.0,
                "min": t[0], "max": t[-1], "runs": len(t), "rounds": rounds,
            }
    group = {"id": gid, "commands": cmds}
    load = os.path.join(out, gid + "-load.tsv")
    if os.path.exists(load):
        with open(load) as f:
            next(f)
            group["load"] = [
                {"temp": t, "round": int(r), "busy_before": float(b), "waited_s": int(w),
                 "loadavg1": float(la)}
                for t, r, b, w, la in (line.rstrip("\n").split("\t") for line in f)
            ]
    meta = os.path.join(out, gid + "-dir.meta")
    if os.path.exists(meta):
        with open(meta) as f:
            group.update(json.load(f))
    return group


def by_name(group):
    return {c["name"]: c for c in group["commands"]}


def ratio(group, num, den, temp):
    c = by_name(group)
    a, b = c.get(num), c.get(den)
    if not a or not b or not a.get(temp) or not b.get(temp):
        return None
    return a[temp]["median"] / b[temp]["median"]


def references(gid):
    for prefix, refs in REFERENCES.items():
        if gid.startswith(prefix):
            return refs
    return []


def table(group, lines):
    gid = group["id"]
    refs = [r for r in references(gid) if r in by_name(group)]
    head = "| command | hot median | cold median |"
    sep = "| --- | ---: | ---: |"
    for r in refs:
        head += f" hot ÷ `{r}` | cold ÷ `{r}` |"
        sep += " ---: | ---: |"
    head += " peak RSS | output lines |"
    sep += " ---: | ---: |"
    lines += [head, sep]
    for c in group["commands"]:
        row = f"| `{c['name']}` | {fmt_time(c['hot'] and c['hot']['median'])} | "
        row += f"{fmt_time(c['cold'] and c['cold']['median'])} |"
        for r in refs:
            row += f" {fmt_ratio(ratio(group, c['name'], r, 'hot'))} |"
            row += f" {fmt_ratio(ratio(group, c['name'], r, 'cold'))} |"
        rss = c["peak_rss_kib"]
        row += f" {rss / MIB:.1f} MiB |" if rss else " – |"
        row += f" {c['output_lines']} |"
        lines.append(row)
    runs = []
    for t in ("hot", "cold"):
        rs = sorted({(c[t]["runs"], c[t]["rounds"]) for c in group["commands"] if c[t]})
        runs += [f"{t} {n} runs in {r} rounds" for n, r in rs]
    lines += ["", f"Runs per command: {'; '.join(runs)}.", ""]
    load = group.get("load", [])
    if load:
        busy = [r["busy_before"] for r in load]
        loud = sum(1 for r in load if r["busy_before"] > QUIET)
        lines[-1:] = [f"Other tenants' CPU load before each round: busy fraction median "
                      f"{statistics.median(busy):.2f}, max {max(busy):.2f}; waited "
                      f"{sum(r['waited_s'] for r in load)} s in all; {loud} of {len(load)} rounds "
                      f"started above {QUIET}.", ""]


def threshold_tables(groups, lines):
    order = lambda g: g.get("st_size", 0)  # noqa: E731
    ths = sorted((g for g in groups if g["id"].startswith("threshold-")), key=order)
    if not ths:
        return
    variants = [("dents ls -j1", ["dents ls", "dents ls -j2", "dents ls -j8"]),
                ("slicer 1", ["slicer 2", "slicer 4", "slicer 8"])]
    for temp in ("hot", "cold"):
        head = "| entries | st_size | `dents ls -j1` |"
        sep = "| ---: | ---: | ---: |"
        for base, others in variants:
            if base != "dents ls -j1":
                head += f" `{base}` |"
                sep += " ---: |"
            for o in others:
                head += f" `{o}` ÷ `{base}` |"
                sep += " ---: |"
        lines += [f"**{temp}** (medians; ratios to the one-thread read of the same run)", "", head, sep]
        for g in ths:
            c = by_name(g)
            n = c["dents ls -j1"]["output_lines"]
            row = f"| {n} | {g.get('st_size', 0) / 1024:.0f} KiB |"
            for base, others in variants:
                row += f" {fmt_time(c[base][temp] and c[base][temp]['median'])} |"
                for o in others:
                    row += f" {fmt_ratio(ratio(g, o, base, temp))} |"
            lines.append(row)
        lines.append("")


def targets(groups):
    gs = {g["id"]: g for g in groups}
    res = []
    for label, gid, kind, num, den, temp, limit in TARGETS:
        g = gs.get(gid)
        value = None
        if g:
            c = by_name(g)
            if kind == "time":
                value = ratio(g, num, den, temp)
            elif kind == "rss" and c.get(num) and c.get(den):
                value = c[num]["peak_rss_kib"] / c[den]["peak_rss_kib"]
            elif kind == "rss_abs" and c.get(num):
                value = c[num]["peak_rss_kib"] / MIB
        res.append({"target": label, "group": gid, "value": value, "limit": limit,
                    "met": None if value is None else value <= limit})
    return res


def main() -> None:
    out = sys.argv[1]
    env = {}
    if os.path.exists(os.path.join(out, "env.txt")):
        for line in open(os.path.join(out, "env.txt")):
            k, _, v = line.rstrip("\n").partition(": ")
            env[k] = v
    notes = []
    if os.path.exists(os.path.join(out, "notes.txt")):
        notes = [line.strip() for line in open(os.path.join(out, "notes.txt")) if line.strip()]
    ids = sorted(f[: -len("-cmds.tsv")] for f in os.listdir(out) if f.endswith("-cmds.tsv"))
    key = lambda i: [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", i)]  # noqa: E731
    groups = [load_group(out, i) for i in sorted(ids, key=key)]
    tg = targets(groups)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"env": env, "notes": notes, "groups": groups, "targets": tg}, f, indent=1)

    lines = ["# dents benchmark results", ""]
    lines += [f"- {k}: {v}" for k, v in env.items()]
    lines += [f"- note: {n}" for n in notes]
    lines.append("")
    if any(t["value"] is not None for t in tg):
        lines += ["## Targets (issue 2, ext4/flat1m unless marked)", "",
                  "| target | measured | met |", "| --- | ---: | --- |"]
        for t in tg:
            v = "–" if t["value"] is None else f"{t['value']:.2f}"
            met = "–" if t["met"] is None else ("yes" if t["met"] else "**no**")
            lines.append(f"| {t['target']} | {v} | {met} |")
        lines.append("")
    for g in groups:
        if g["id"].startswith("threshold-"):
            continue
        lines += [f"## {g['id']}", ""]
        table(g, lines)
    if any(g["id"].startswith("threshold-") for g in groups):
        lines += ["## threshold (ext4)", ""]
        threshold_tables(groups, lines)
        for g in groups:
            if g["id"].startswith("threshold-"):
                lines += [f"### {g['id']} ({g.get('st_size', 0)} bytes)", ""]
                table(g, lines)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
