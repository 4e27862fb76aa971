#!/bin/bash
# Hot walks in both orders, CPU time per run (perf stat), interleaved rounds:
# docs/walk-order.md.  Usage: bench/order/hot-cpu.sh [ROUNDS] > out.tsv
# Columns: variant, task-clock ms, user ns, sys ns, context switches,
# CPU migrations, page faults.  DENTS: the binary (default target/release/dents).
D=${TREE:-/var/tmp/dents-bench/tree/shape}
B=${DENTS:-target/release/dents}
one=$(mktemp)
for r in $(seq ${1:-25}); do
  for cfg in "bfs1:-j1" "dfs1:-j1 -S dfs" "bfs2:-j2" "dfs2:-j2 -S dfs" "bfs8:" "dfs8:-S dfs"; do
    IFS=: read name args <<< "$cfg"
    perf stat -x, -e task-clock,user_time,system_time,context-switches,cpu-migrations,page-faults \
      -o "$one" $B find $args "$D" -false
    echo "$name $(grep -v '^#' "$one" | grep -v '^$' | cut -d, -f1 | tr '\n' ' ')"
  done
done
rm -f "$one"
