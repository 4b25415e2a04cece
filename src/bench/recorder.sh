#!/bin/sh
# The flight recorder's figures in the README's benchmark table (issue 42), from a release build:
#   cargo build --release --locked && src/bench/recorder.sh
# A demo server with PODS realistic pods and CHURN changes/s (its own process, so its CPU is not
# counted); `record --informers-only` (the same informers, nothing recorded) and `record` for
# SECS seconds each, their CPU (user + system, from /usr/bin/time) and the file's size; then
# `replay` of that file: the first table and a first `:at` from its log.
set -eu
BIN=${BIN:-target/release/kinformer}
PODS=${PODS:-10000}
CHURN=${CHURN:-100}
SECS=${SECS:-120}
OUT=${OUT:-$(mktemp -d)}
echo "machine: $(nproc) cores, $(uptime)"
"$BIN" demo-server --pods "$PODS" --churn "$CHURN" --kubeconfig-out "$OUT/kubeconfig" \
    --log-file "$OUT/server.log" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
while [ ! -s "$OUT/kubeconfig" ]; do sleep 0.2; done
sleep 2
cpu() { # command... -> "user+sys seconds"
    /usr/bin/time -f "%U %S" -o "$OUT/time" "$@" >/dev/null 2>&1 || true
    awk '{printf "%.2f", $1 + $2}' "$OUT/time"
}
base=$(cpu "$BIN" record --kubeconfig "$OUT/kubeconfig" --informers-only --duration "${SECS}s" \
    --quiet --out "$OUT/none.db" --log-file "$OUT/base.log")
rec=$(cpu "$BIN" record --kubeconfig "$OUT/kubeconfig" --duration "${SECS}s" --quiet \
    --out "$OUT/rec.db" --log-file "$OUT/rec.log")
size=$(stat -c %s "$OUT/rec.db")
echo "informers alone: ${base} s CPU in ${SECS} s; recording: ${rec} s CPU"
awk -v b="$base" -v r="$rec" 'BEGIN { printf "recording adds %.0f %% CPU\n", (r - b) * 100 / b }'
echo "file: $size bytes after ${SECS} s ($OUT/rec.db)"
# The replay of that file (in a tmux session of its own): the log's times to the first table
# drawn and of the past views (`:at` at the middle of the recording, then a `[` step).
if command -v tmux >/dev/null; then
    s="bench_recorder_$$"
    tmux new-session -d -s "$s" -x 200 -y 50 \
        "$BIN replay '$OUT/rec.db' --log-file '$OUT/replay.log'; sleep 30"
    until grep -q "first table drawn" "$OUT/replay.log" 2>/dev/null; do sleep 0.2; done
    tmux send-keys -t "$s" ":at -$((SECS / 2))s" Enter
    sleep 3
    tmux send-keys -t "$s" "["
    sleep 3
    tmux send-keys -t "$s" q
    sleep 1
    tmux kill-session -t "$s" 2>/dev/null || true
    grep -E "recording open|first table drawn|past view" "$OUT/replay.log" | sed 's/^.*replay: /replay: /'
fi
