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
ENV = {}  # env.txt, read by main
QUIET = float(os.environ.get("QUIET", "0.15"))

# Reference commands of each group (by ID prefix): ratios are taken to these.
REFERENCES = {
    "ls-": ["ls -f", "ls -l"],
    "bufsize-": ["dents-floor 64K"],
    "threshold-": ["dents ls -j1", "slicer 1"],
    "du-": ["du -s"],
    "lsterm-": ["ls -R", "ls -R --color=always -C", "ls --color=always -C"],
}
# Groups whose tables also show the first command's time ÷ each command's
# (e.g. `dents du -s` ÷ every peer) and the median CPU time (user + system,
# hyperfine's per-round means) of each command.
VERSUS_FIRST = ("du-",)
CPU_COLUMNS = ("du-", "lsterm-", "tree-")

# The issues' targets: (label, ID, kind, numerator, denominator, temperature, limit).
# kind "time": median ratio in one run; "time_per_core": that ratio times
# the number of cores (a time against a one-thread floor divided by the
# cores); "rss": peak RSS ratio; "rss_abs": MiB.  "time_fastest" and
# "rss_least": the denominator is a tuple of names, the fastest (the least
# peak RSS) of those present in the group is taken.
TARGETS = [
    ("`dents ls` ≤ 0.5× `ls -f`, hot", "ls-ext4", "time", "dents ls", "ls -f", "hot", 0.5),
    ("`dents ls` ≤ 0.4× `ls -f`, cold", "ls-ext4", "time", "dents ls", "ls -f", "cold", 0.4),
    ("`dents ls -l` ≤ 0.2× `ls -l`, hot", "ls-ext4", "time", "dents ls -l", "ls -l", "hot", 0.2),
    ("`dents ls -l` ≤ 0.4× `ls -l`, cold", "ls-ext4", "time", "dents ls -l", "ls -l", "cold", 0.4),
    ("`dents ls -l` peak RSS ≤ 0.5× `ls -l`'s", "ls-ext4", "rss", "dents ls -l", "ls -l", None, 0.5),
    ("`dents ls` peak RSS ≤ 16 MiB", "ls-ext4", "rss_abs", "dents ls", None, None, 16.0),
    ("xfs: `dents ls` ≤ 0.6× `ls -f`, hot", "ls-xfs", "time", "dents ls", "ls -f", "hot", 0.6),
    # Issue 3 (no d_type).
    ("3: 1M no-type dir: `dents find -false` ≤ 0.3× bfs, hot", "noft-flat", "time",
     "dents find -false", "bfs -false", "hot", 0.3),
    ("3: 1M no-type dir: `dents find -false` ≤ 0.25× bfs, cold", "noft-flat", "time",
     "dents find -false", "bfs -false", "cold", 0.25),
    ("3: 1M no-type dir: ≤ 1.3× the names-only read, hot", "noft-flat", "time",
     "dents find -false", "dents ls (names only)", "hot", 1.3),
    ("3: 1M no-type dir: ≤ 1.3× the names-only read, cold", "noft-flat", "time",
     "dents find -false", "dents ls (names only)", "cold", 1.3),
    ("3: no-type tree shape: ≤ 0.7× bfs, hot", "noft-shape", "time",
     "dents find -false", "bfs -false", "hot", 0.7),
    ("3: no-type tree shape: ≤ 0.7× bfs, cold", "noft-shape", "time",
     "dents find -false", "bfs -false", "cold", 0.7),
]
for corpus in ("shape", "home"):
    TARGETS += [
        (f"4: {corpus} `-false` ≤ 0.8× bfs, hot", f"tree-{corpus}-false", "time",
         "dents find -false", "bfs -false", "hot", 0.8),
        (f"4: {corpus} `-false` ≤ 0.8× bfs, cold", f"tree-{corpus}-false", "time",
         "dents find -false", "bfs -false", "cold", 0.8),
        (f"4: {corpus} `-false` ≤ 0.5× GNU find, hot", f"tree-{corpus}-false", "time",
         "dents find -false", "find -false", "hot", 0.5),
        (f"4: {corpus} `-false` ≤ 1.25× floor ÷ cores, hot", f"tree-{corpus}-false",
         "time_per_core", "dents find -false", "dents-floor", "hot", 1.25),
        (f"4: {corpus} `-size +1M` ≤ 0.75× bfs, hot", f"tree-{corpus}-size", "time",
         "dents find -size +1M", "bfs -size +1M", "hot", 0.75),
        (f"4: {corpus} `-size +1M` ≤ 0.75× bfs, cold", f"tree-{corpus}-size", "time",
         "dents find -size +1M", "bfs -size +1M", "cold", 0.75),
        (f"4: {corpus} peak RSS ≤ bfs's (`-false`)", f"tree-{corpus}-false", "rss",
         "dents find -false", "bfs -false", None, 1.0),
    ]
TARGETS += [
    ("4: shape, print every path ≤ 0.8× bfs, hot", "tree-shape-print", "time",
     "dents find", "bfs", "hot", 0.8),
    ("4: shape, print every path ≤ 0.8× bfs, cold", "tree-shape-print", "time",
     "dents find", "bfs", "cold", 0.8),
    ("4: shape, early quit ≤ 1.0× bfs, hot", "tree-shape-quit", "time",
     "dents find -name dents-needle -print -quit", "bfs -name dents-needle -print -quit",
     "hot", 1.0),
    ("4: shape, early quit ≤ 1.0× bfs, cold", "tree-shape-quit", "time",
     "dents find -name dents-needle -print -quit", "bfs -name dents-needle -print -quit",
     "cold", 1.0),
    ("4: 1M-entry directory, print ≤ 0.5× bfs, hot", "tree-flat1m-print", "time",
     "dents find", "bfs", "hot", 0.5),
    ("4: 1M-entry directory, print ≤ 0.5× bfs, cold", "tree-flat1m-print", "time",
     "dents find", "bfs", "cold", 0.5),
    ("4: 1M-entry directory, peak RSS ≤ bfs's", "tree-flat1m-print", "rss",
     "dents find", "bfs", None, 1.0),
    ("4: shape, print: peak RSS ≤ bfs's", "tree-shape-print", "rss",
     "dents find", "bfs", None, 1.0),
]


# Issue 5: -printf on the shape, -exec ... {} + on 100,000 files.
TARGETS += [
    ("5: shape, `-printf` ≤ 0.6× GNU find, hot", "printf-shape", "time",
     "dents find -printf F", "find -printf F", "hot", 0.6),
    ("5: shape, `-printf` ≤ 0.6× GNU find, cold", "printf-shape", "time",
     "dents find -printf F", "find -printf F", "cold", 0.6),
    ("5: shape, `-printf` ≤ 0.8× bfs, hot", "printf-shape", "time",
     "dents find -printf F", "bfs -printf F", "hot", 0.8),
    ("5: shape, `-printf` ≤ 0.8× bfs, cold", "printf-shape", "time",
     "dents find -printf F", "bfs -printf F", "cold", 0.8),
    ("5: 100k files, `-exec /bin/true {} +` ≤ 1.0× GNU find, hot", "exec-files100k", "time",
     "dents find -type f -exec /bin/true {} +", "find -type f -exec /bin/true {} +", "hot", 1.0),
    ("5: 100k files, `-exec /bin/true {} +` ≤ 1.0× GNU find, cold", "exec-files100k", "time",
     "dents find -type f -exec /bin/true {} +", "find -type f -exec /bin/true {} +", "cold", 1.0),
]


# Issue 13: dents du.  Parallel peers: every du peer but GNU du and ncdu.
DU_PARALLEL = ("diskus", "pdu --max-depth=1", "dua", "dust -P -d 0", "gdu -n -s -p")
DU_ALL = ("du -s", "ncdu -o /dev/null") + DU_PARALLEL
for corpus, temps in (("shape", ("hot", "cold")), ("home", ("hot",)), ("flat1m", ("hot", "cold"))):
    gid = f"du-{corpus}"
    for temp in temps:
        TARGETS.append((f"13: {corpus} `dents du -s` ≤ {0.5 if temp == 'hot' else 0.35}× GNU du -s, {temp}",
                        gid, "time", "dents du -s", "du -s", temp, 0.5 if temp == "hot" else 0.35))
    for temp in temps:
        TARGETS.append((f"13: {corpus} ≤ 0.8× the fastest parallel peer, {temp}", gid,
                        "time_fastest", "dents du -s", DU_PARALLEL, temp, 0.8))
    if corpus == "flat1m":
        for temp in temps:
            TARGETS.append((f"13: flat1m ≤ 0.5× the fastest peer, {temp}", gid,
                            "time_fastest", "dents du -s", DU_ALL, temp, 0.5))
    TARGETS.append((f"13: {corpus} peak RSS ≤ GNU du's", gid, "rss", "dents du -s", "du -s", None, 1.0))
    TARGETS.append((f"13: {corpus} peak RSS < every parallel peer's (≤ 1.0× the least)", gid,
                    "rss_least", "dents du -s", DU_PARALLEL, None, 1.0))
# Issue 14: dents ls in GNU's look.
for gid, num, den in (("lsterm-shape-R", "dents ls -R", "ls -R"),
                      ("lsterm-shape-R", "dents ls -R --sort=name", "ls -R"),
                      ("lsterm-shape-color", "dents ls -R --color=always -C --sort=name",
                       "ls -R --color=always -C"),
                      ("lsterm-flat1m-color", "dents ls --color=always -C --sort=name",
                       "ls --color=always -C")):
    TARGETS.append((f"14: `{num}` ≤ 0.5× `{den}`, hot", gid, "time", num, den, "hot", 0.5))
    TARGETS.append((f"14: `{num}` peak RSS ≤ `{den}`'s", gid, "rss", num, den, None, 1.0))


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
        cpu = {c["name"]: [] for c in cmds}
        rounds = 0
        pat = re.compile(re.escape(f"{gid}-{temp}-r") + r"\d+\.json$")
        for f in sorted(os.listdir(out)):
            if pat.fullmatch(f):
                rounds += 1
                with open(os.path.join(out, f)) as fh:
                    for r in json.load(fh)["results"]:
                        times[r["command"]] += r["times"]
                        cpu[r["command"]].append(r.get("user", 0.0) + r.get("system", 0.0))
        for c in cmds:
            t = sorted(times[c["name"]])
            c[temp] = None if not t else {
                "median": statistics.median(t), "mean": statistics.fmean(t),
                "stddev": statistics.stdev(t) if len(t) > 1 else 0.0,
                "min": t[0], "max": t[-1], "runs": len(t), "rounds": rounds,
                # user + system seconds: median of the rounds' means
                "cpu_median": statistics.median(cpu[c["name"]]),
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


def references(gid, group=None):
    for prefix, refs in REFERENCES.items():
        if gid.startswith(prefix):
            return refs
    if group and gid.startswith(("noft-", "tree-", "printf-", "exec-")):
        # Traversals: ratios to bfs (the newest), GNU find, and the floor
        # or names-only read where the group has one.
        names = [c["name"] for c in group["commands"]]
        refs = []
        for want in (lambda n: n.split(" ")[0] == "bfs" and not n.startswith("bfs 2.6"),
                     lambda n: n.split(" ")[0] == "find",
                     lambda n: n.startswith("dents ls (names only)"),
                     lambda n: n.startswith("dents-floor")):
            hit = next((n for n in names if want(n)), None)
            if hit:
                refs.append(hit)
        if gid.endswith("-jobs"):
            refs = [n for n in names if n.startswith("dents find -j1 ")][:1] + refs[:1]
        return refs
    return []


def table(group, lines):
    gid = group["id"]
    refs = [r for r in references(gid, group) if r in by_name(group)]
    head = "| command | hot median | cold median |"
    sep = "| --- | ---: | ---: |"
    for r in refs:
        head += f" hot ÷ `{r}` | cold ÷ `{r}` |"
        sep += " ---: | ---: |"
    first = group["commands"][0]["name"] if gid.startswith(VERSUS_FIRST) else None
    if first:
        head += f" `{first}` ÷ this, hot | cold |"
        sep += " ---: | ---: |"
    cpu = gid.startswith(CPU_COLUMNS)
    if cpu:
        head += " CPU hot | CPU cold |"
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
        if first:
            row += f" {fmt_ratio(ratio(group, first, c['name'], 'hot'))} |"
            row += f" {fmt_ratio(ratio(group, first, c['name'], 'cold'))} |"
        if cpu:
            for t in ("hot", "cold"):
                row += f" {fmt_time(c[t]['cpu_median'])} |" if c[t] else " – |"
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
        best_of = kind in ("time_fastest", "rss_least")
        g = gs.get(gid)
        value = None
        if g:
            c = by_name(g)
            if kind in ("time_fastest", "rss_least"):
                # The best of the named peers present, then as "time"/"rss".
                present = [n for n in den if c.get(n) and (kind == "rss_least" or c[n].get(temp))]
                if not present:
                    den = None
                elif kind == "time_fastest":
                    den = min(present, key=lambda n: c[n][temp]["median"])
                else:
                    den = min(present, key=lambda n: c[n]["peak_rss_kib"])
                kind = kind == "time_fastest" and "time" or "rss"
            if kind == "time":
                value = ratio(g, num, den, temp)
            elif kind == "time_per_core":
                r = ratio(g, num, den, temp)
                value = None if r is None else r * int(ENV.get("nproc", "1"))
            elif kind == "rss" and c.get(num) and c.get(den):
                value = c[num]["peak_rss_kib"] / c[den]["peak_rss_kib"]
            elif kind == "rss_abs" and c.get(num):
                value = c[num]["peak_rss_kib"] / MIB
        res.append({"target": label, "group": gid, "value": value, "limit": limit,
                    "met": None if value is None else value <= limit,
                    "against": den if isinstance(den, str) else None, "best_of": best_of})
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
    ENV.update(env)
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
        lines += ["## Targets (issue 2 unless numbered; ext4/flat1m unless marked)", "",
                  "| target | measured | met |", "| --- | ---: | --- |"]
        for t in tg:
            v = "–" if t["value"] is None else f"{t['value']:.2f}"
            if t["value"] is not None and t.get("best_of"):
                v += f" (vs `{t['against']}`)"
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
