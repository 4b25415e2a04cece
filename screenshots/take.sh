#!/usr/bin/env bash
# Regenerate the PNG screenshots in screenshots/ from a real run of kinformer against its
# built-in demo cluster.
#
#   bash screenshots/take.sh            # builds `cargo build --release`, then shoots
#   bash screenshots/take.sh --debug    # uses a debug build instead (faster to build)
#   KINFORMER_BIN=/path/to/kinformer bash screenshots/take.sh   # use an existing binary
#
# It runs `kinformer --demo -A --demo-pods 400` in a detached 160x45 tmux session, waits until
# the pods informer is synced, sends keys to reach each screen, captures the pane with its
# colours (`tmux capture-pane -e -p`) and renders each capture to PNG with ansi2png.py
# (Pillow + DejaVu Sans Mono, installed here if missing). The raw captures stay in
# $SHOTS_TMP (default /tmp/kinformer-shots) for inspection.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
COLS=160
ROWS=45
TMP="${SHOTS_TMP:-/tmp/kinformer-shots}"
SOCK="kinformer-shots-$$"
SESSION="shots"
PROFILE=release
[[ "${1:-}" == "--debug" ]] && PROFILE=debug

log() { printf '[take.sh] %s\n' "$*" >&2; }

# --- dependencies -------------------------------------------------------------------------
need_apt=()
command -v tmux >/dev/null || need_apt+=(tmux)
[[ -f /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ]] || need_apt+=(fonts-dejavu-core)
if ((${#need_apt[@]})); then
    log "installing ${need_apt[*]}"
    apt-get update -qq && apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
PY="${PYTHON:-python3}"
if ! "$PY" -c 'import PIL' 2>/dev/null; then
    log "installing pillow"
    "$PY" -m pip install -q pillow
fi

# --- binary -------------------------------------------------------------------------------
if [[ -n "${KINFORMER_BIN:-}" ]]; then
    BIN="$KINFORMER_BIN"
else
    TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
    log "cargo build --$PROFILE (target dir $TARGET)"
    if [[ $PROFILE == release ]]; then
        (cd "$ROOT" && cargo build --release --bin kinformer)
    else
        (cd "$ROOT" && cargo build --bin kinformer)
    fi
    BIN="$TARGET/$PROFILE/kinformer"
fi
[[ -x "$BIN" ]] || { log "no binary at $BIN"; exit 1; }

# --- tmux helpers -------------------------------------------------------------------------
mkdir -p "$TMP"
T() { tmux -L "$SOCK" "$@"; }
cleanup() { T kill-server 2>/dev/null || true; }
trap cleanup EXIT

# Send one key (tmux key name) and let the app redraw. Escape always goes alone, followed by
# a pause, or crossterm would read ESC + the next key as Alt+key.
key() { T send-keys -t "$SESSION" "$1"; sleep "${2:-0.3}"; }
# Type literal text.
typ() { T send-keys -t "$SESSION" -l "$1"; sleep 0.3; }
esc() { T send-keys -t "$SESSION" Escape; sleep 0.6; }
cmd() { key ':'; typ "$1"; key Enter 1; }

# Wait until the pane shows $1 (fixed string), up to $2 seconds.
wait_for() {
    local what="$1" limit="${2:-30}" i
    for ((i = 0; i < limit * 5; i++)); do
        if T capture-pane -t "$SESSION" -p | grep -qF -- "$what"; then return 0; fi
        sleep 0.2
    done
    log "timed out waiting for '$what'; pane was:"
    T capture-pane -t "$SESSION" -p >&2
    exit 1
}

# Capture the pane to $TMP/NAME.ansi and render screenshots/NAME.png.
shot() {
    local name="$1"
    sleep "${2:-0.5}"
    T capture-pane -t "$SESSION" -e -p >"$TMP/$name.ansi"
    "$PY" "$HERE/ansi2png.py" "$TMP/$name.ansi" "$HERE/$name.png" --cols "$COLS" --rows "$ROWS"
    log "screenshots/$name.png ($(stat -c %s "$HERE/$name.png") bytes)"
}

# --- the run ------------------------------------------------------------------------------
log "starting $BIN --demo in tmux (${COLS}x${ROWS})"
T -f /dev/null new-session -d -s "$SESSION" -x "$COLS" -y "$ROWS" \
    "env TERM=xterm-256color COLORTERM=truecolor HOME=$TMP/home \
     $BIN --demo -A --demo-pods 400 --log-file $TMP/kinformer.log; sleep 30"
T set-option -t "$SESSION" -g default-terminal tmux-256color >/dev/null 2>&1 || true
T set-option -t "$SESSION" status off
T resize-window -t "$SESSION" -x "$COLS" -y "$ROWS" 2>/dev/null || true

# 1. pods table, all namespaces, with usage from the first metrics poll and the live event log
#    pane under it (shown on start)
wait_for "synced" 60
wait_for "DeltaFIFO events"
sleep 3
# a key press replaces the start-up status line with the key hints
key j
key k
shot pods 1

# 2. help
key '?'
wait_for "Show this help"
shot help
esc

# 3. label filter with the picker open: typed key, values listed with counts from the index
key C-l
wait_for "Label filter"
typ "app.kubernetes.io/part-of"
key Down
shot label-filter
# take the highlighted value (tab completes it) and apply: the table narrows to the index's answer
key Tab
key Enter 1
wait_for "label index"
shot label-filter-applied
esc

# 4. describe of a CrashLoopBackOff pod, scrolled so its Events section is on screen
key '/'
typ "CrashLoop"
key Enter 1
key g
key d
wait_for "Name:"
key G
for _ in $(seq 38); do key k 0.05; done
shot describe 1
esc
esc

# 5. deployments
cmd deploy
wait_for "Deployments("
wait_for "synced"
shot deployments 1.5

# 6. drill-down: Enter on report-web -> its pods through the owner index
key '/'
typ "report-web"
key Enter
wait_for "report-web"
key Enter 1.5
wait_for "<deployments/report-web>"
wait_for "owner index"
shot drilldown 1.5

# 7. YAML of the first pod of the drill-down
key y
wait_for "apiVersion:"
shot yaml 1
esc

# 8. DeltaFIFO event log (full screen)
cmd deltas
wait_for "DeltaFIFO events"
shot events 1
esc

# 9. informer panel
cmd informers
wait_for "RELISTS"
shot informers 1
esc

# 10. the pulse: tiles, cluster usage, deltas per informer, restarts, warnings (a few
# seconds so the sparklines have samples)
cmd pulse
wait_for "Cluster usage"
wait_for "metrics.k8s.io (node usage)"
shot pulse 5

# 11. nodes with usage (the pulse's nodes tile opens only the faulty ones: :nodes for all)
esc
cmd nodes
wait_for "Nodes("
shot nodes 1.5

# 12. workload logs: L on a deployment streams every pod of its selector, prefixed pod/container
cmd deploy
wait_for "Deployments("
key '/'
typ "notification-api"
key Enter 1
key l
wait_for "follows pods as they come and go"
wait_for " live"
shot logs-workload 8
esc

# 13. xray: the deployments' owner tree, one pod opened (its containers fetched)
cmd xray
wait_for "Xray deployments"
key '/'
typ "notification-api"
key Enter 1
key j
key j
key Space 1.5
shot xray 1

esc
esc

# 14. history of a crash-looping pod: its versions as the informer saw them, what changed
cmd pods
wait_for "Pods("
key '/'
typ "CrashLoop"
key Enter 1
key g
key h
wait_for "Recorded"
shot history 1
esc
esc

# 15. the latest changes across the cluster
cmd changes
wait_for "Changes["
shot changes 1

key q

# 16. a fleet: three demo clusters in one merged table (CLUSTER column, each cluster's state in
# the header line)
# The whole tmux server goes (killing its last session makes it exit, and a new session started
# while it is exiting fails with "server exited unexpectedly").
T kill-server 2>/dev/null || true
for ((i = 0; i < 50; i++)); do T has-session 2>/dev/null || break; sleep 0.1; done
sleep 0.5
log "starting $BIN --demo-clusters 3 in tmux (${COLS}x${ROWS})"
T -f /dev/null new-session -d -s "$SESSION" -x "$COLS" -y "$ROWS" \
    "env TERM=xterm-256color COLORTERM=truecolor HOME=$TMP/home \
     $BIN --demo-clusters 3 --demo-pods 300 --log-file $TMP/kinformer-fleet.log; sleep 30"
T set-option -t "$SESSION" status off
T resize-window -t "$SESSION" -x "$COLS" -y "$ROWS" 2>/dev/null || true
wait_for "staging synced" 60
wait_for "DeltaFIFO events"
sleep 3
key '/'
typ "payments"
key Enter 1
shot fleet 1
key q
log "done: $(ls "$HERE"/*.png | wc -l) PNGs in screenshots/"
