#!/usr/bin/env python3
"""Tables of bench/mpi/run.sh's results: medians per command and
temperature, ratios between commands of the same run, and issue 16's
targets met or missed.

usage: summarize.py OUT_DIR   (reads runs.tsv, checks.tsv, commands.tsv;
                               markdown to standard output)
"""

import csv
import os
import statistics
import sys

# (what, numerator, denominator, column, target): numerator / denominator
# of the medians of `column` ("whole", "walk", "cpu": all ranks' CPU time,
# or "rss": the largest rank's peak RSS), compared with the target (at
# most; None: shown, no target).
TARGETS = [
    ("-np 1 overhead", ("dents-mpi find -size +1M", 1), ("dents find -size +1M", 0), "whole", 1.1),
    ("-np 1 overhead", ("dents-mpi find -false", 1), ("dents find -false", 0), "whole", 1.1),
    ("-np 1 overhead", ("dents-mpi du -s", 1), ("dents du -s", 0), "whole", 1.1),
    ("vs dwalk", ("dents-mpi find -size +1M", 2), ("dwalk", 2), "whole", 0.7),
    ("vs dwalk", ("dents-mpi find -size +1M", 2), ("dwalk", 2), "walk", 0.7),
    ("vs dwalk", ("dents-mpi du -s", 2), ("dwalk", 2), "whole", 0.7),
    ("vs dwalk --lite", ("dents-mpi find -false", 2), ("dwalk --lite", 2), "whole", 0.7),
    ("vs dwalk --lite", ("dents-mpi find -false", 2), ("dwalk --lite", 2), "walk", 0.7),
    ("vs dwalk", ("dents-mpi du -s", 2), ("dwalk", 2), "walk", 0.7),
    ("memory per rank", ("dents-mpi find -size +1M", 2), ("dwalk", 2), "rss", 0.25),
    ("memory per rank", ("dents-mpi find", 2), ("dwalk", 2), "rss", 0.25),
    ("memory per rank", ("dents-mpi du -s", 2), ("dwalk", 2), "rss", 0.25),
    ("CPU", ("dents-mpi du -s", 2), ("dwalk", 2), "cpu", None),
    ("CPU", ("dents-mpi du -s", 1), ("dents du -s", 0), "cpu", None),
    ("-np 2 speed-up", ("dents-mpi du -s", 2), ("dents-mpi du -s", 1), "whole", None),
    ("-np 2 speed-up", ("dents-mpi find -size +1M", 2), ("dents-mpi find -size +1M", 1), "whole", None),
    ("-np 2 speed-up", ("dwalk", 2), ("dwalk", 1), "whole", None),
    ("-np 2 speed-up", ("dwalk --lite", 2), ("dwalk --lite", 1), "whole", None),
]


def label(name, np):
    return name if np == 0 else f"{name} -np {np}"


def load(out):
    """{(temp, name, np): {"whole": [..], "walk": [..], "rss": [[per rank]..]}}"""
    runs = {}
    with open(os.path.join(out, "runs.tsv")) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            key = (row["temp"], row["name"], int(row["np"]))
            r = runs.setdefault(key, {"whole": [], "walk": [], "rss": [], "cpu": []})
            r["whole"].append(float(row["whole_s"]))
            if row["walk_s"]:
                r["walk"].append(float(row["walk_s"]))
            r["rss"].append([int(k) for k in row["rss_kib"].split(",")])
            if row.get("cpu_s"):
                r["cpu"].append(sum(float(c) for c in row["cpu_s"].split(",")))
    return runs


def medians(r):
    """Median whole and walk time, CPU time (all ranks together), and the
    median over runs of each rank's peak RSS (MiB), largest rank first."""
    ranks = len(r["rss"][0])
    rss = sorted((statistics.median(run[i] for run in r["rss"]) / 1024 for i in range(ranks)), reverse=True)
    return {
        "whole": statistics.median(r["whole"]),
        "walk": statistics.median(r["walk"]) if r["walk"] else None,
        "cpu": statistics.median(r["cpu"]) if r["cpu"] else None,
        "rss": rss,
        "n": len(r["whole"]),
    }


def main():
    out = sys.argv[1]
    runs = load(out)
    temps = []
    for t, _, _ in runs:
        if t not in temps:
            temps.append(t)
    print("## Medians\n")
    for t in temps:
        print(f"### {t}\n")
        print("| command | runs | whole command | walk phase (own clock) | CPU, all ranks | peak RSS per rank (MiB) |")
        print("|---|---:|---:|---:|---:|---|")
        for (tt, name, np), r in runs.items():
            if tt != t:
                continue
            m = medians(r)
            walk = "" if m["walk"] is None else f"{m['walk'] * 1000:.0f} ms"
            rss = ", ".join(f"{x:.1f}" for x in m["rss"])
            cpu = "" if m["cpu"] is None else f"{m['cpu'] * 1000:.0f} ms"
            whole = f"{m['whole'] * 1000:.0f} ms"
            print(f"| {label(name, np)} | {m['n']} | {whole} | {walk} | {cpu} | {rss} |")
        print()
    print("## Ratios (medians of the same run)\n")
    print("| temp | what | ratio | value | target | met |")
    print("|---|---|---|---:|---:|---|")
    for t in temps:
        for what, a, b, col, target in TARGETS:
            ra, rb = runs.get((t, *a)), runs.get((t, *b))
            if not ra or not rb:
                continue
            ma, mb = medians(ra), medians(rb)
            if col == "rss":
                va, vb = ma["rss"][0], mb["rss"][0]
            else:
                va, vb = ma[col], mb[col]
            if va is None or vb is None:
                continue
            ratio = va / vb
            cell = f"{label(*a)} / {label(*b)} ({col})"
            tgt = "" if target is None else f"≤ {target}"
            met = "" if target is None else ("met" if ratio <= target else "**missed**")
            print(f"| {t} | {what} | {cell} | {ratio:.2f} | {tgt} | {met} |")
    print()
    checks = os.path.join(out, "checks.tsv")
    if os.path.exists(checks):
        print("## Printed lines (first run)\n")
        print("| command | lines | lines that are no path of the tree |")
        print("|---|---:|---:|")
        with open(checks) as f:
            for row in csv.DictReader(f, delimiter="\t"):
                print(f"| {label(row['name'], int(row['np']))} | {row['lines']} | {row['not_a_path']} |")
        print()


if __name__ == "__main__":
    main()
