#!/bin/bash
# Hot A/B of two dents builds and the peers, CPU time per run (perf stat
# task-clock) in interleaved rounds (each round runs every variant once),
# for a loaded machine where wall time means little: docs/walk-order.md,
# docs/history/benchmarks.md (issue 12).
# Usage: OLD=path NEW=path bench/order/ab-cpu.sh [ROUNDS] > out.tsv
# Columns: variant, task-clock ms, wall ms.
D=${TREE:-/var/tmp/dents-bench/tree/shape}
BFS=${BFS:-/opt/peers/bin/bfs4}
FD=${FD:-/opt/peers/bin/fd}
one=$(mktemp)
for r in $(seq "${1:-10}"); do
  for cfg in "old:$OLD find $D -false" "new:$NEW find $D -false" \
             "new-dfs:$NEW find -S dfs $D -false" "new-bfs:$NEW find -S bfs $D -false" \
             "old-j1:$OLD find -j1 $D -false" "new-j1:$NEW find -j1 $D -false" \
             "bfs4:$BFS $D -false" "fd:$FD -u ^\$ $D"; do
    IFS=: read -r name cmd <<< "$cfg"
    # shellcheck disable=SC2086
    perf stat -x, -e task-clock -o "$one" $cmd > /dev/null
    start=$(date +%s%N); $cmd > /dev/null; end=$(date +%s%N)
    echo "$name $(grep task-clock "$one" | cut -d, -f1) $(( (end - start) / 1000000 ))"
  done
done
rm -f "$one"
