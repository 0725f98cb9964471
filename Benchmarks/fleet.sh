#!/usr/bin/env bash
# Fleet update benchmark (issue 14): updating N simulated terminals at once against updating one.
#   Benchmarks/fleet.sh [UCUBE]          (FLEET=N, default 20)
# UCUBE is a built ucube; by default `make` builds the release binary `make install` installs and that is timed.
#
# Each terminal is a `ucube simulate --fleet` terminal over TCP with the BLE link model (`--link-model ble`: the
# latency and throughput of a uCube Touch over Bluetooth LE), from a fresh state (firmware 6.0.0.54), registered with
# a `ucube simulate --tms` TMS first (outside the timing). The timed command is the whole update, as a CI job runs
# it: GetInfo, the TMS config, the download of the SVPP firmware 6.0.1.0 (262 kB, mandatory in the simulator's default
# catalogue), InstallForLoad and 129 Load blocks, the reboot wait and the check of the new version:
#   one terminal:  ucube mdm-update --device tcp://…
#   N terminals:   ucube mdm-update --devices FILE --parallel N --json
# under /usr/bin/time (wall time, peak RSS). Prints both, the ratio of wall times (target ≤ 1.3) and the memory the
# fleet run adds per extra terminal (target: a few MB). One trial of each takes about 7 minutes: the BLE model moves
# 262 kB in about 420 s, for every terminal alike.
set -euo pipefail
cd "$(dirname "$0")/.."

n=${FLEET:-20}
[ -x /usr/bin/time ] || { echo "fleet.sh: needs /usr/bin/time: Scripts/setup.sh --bench" >&2; exit 1; }
# shellcheck source=Benchmarks/lib.sh
source Benchmarks/lib.sh
ucube=$(bench_ucube "$@")

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
export HOME=$work/home XDG_STATE_HOME=$work/home/state XDG_CONFIG_HOME=$work/home/config XDG_RUNTIME_DIR=$work/run
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
unset UCUBE_DEVICE UCUBE_SIM_HOME UCUBE_SIM_SEED UCUBE_SIM_TIME_SCALE UCUBE_SIM_FAULT UCUBE_TMS_URL UCUBE_TMS_CA

# Waits (at most 60 s) until FILE has at least COUNT lines.
wait_lines() {
    for _ in $(seq 600); do
        [ -f "$1" ] && [ "$(grep -c . "$1")" -ge "$2" ] && return 0
        sleep 0.1
    done
    echo "fleet.sh: $1 never got $2 lines" >&2
    exit 1
}

"$ucube" simulate --tms 127.0.0.1:0 >"$work/tms.out" 2>&1 &
pids+=($!)
wait_lines "$work/tms.out" 3
eval "$(grep '^export ' "$work/tms.out")"

# trial COUNT: a fresh fleet of COUNT terminals, registered, then updated under /usr/bin/time.
trial() {
    local count=$1 devices=$work/devices-$1
    "$ucube" simulate --fleet "$count" --listen 127.0.0.1:0 --link-model ble --state-dir "$work/sim-$count" \
        --devices-file "$devices" >/dev/null 2>&1 &
    local sim=$!
    pids+=("$sim")
    wait_lines "$devices" "$count"
    "$ucube" mdm-register --devices "$devices" >/dev/null
    if [ "$count" -eq 1 ]; then
        /usr/bin/time -f "%e %M" -o "$work/time-$count" "$ucube" mdm-update --device "$(head -1 "$devices")" >"$work/out-$count" 2>&1
    else
        /usr/bin/time -f "%e %M" -o "$work/time-$count" "$ucube" mdm-update --devices "$devices" --parallel "$count" --json \
            >"$work/out-$count" 2>&1
        local ok
        ok=$(grep -c '"event":"end".*"result":"ok"' "$work/out-$count" || true)
        [ "$ok" -eq "$count" ] || { echo "fleet.sh: $ok of $count terminals updated" >&2; tail -5 "$work/out-$count" >&2; exit 1; }
    fi
    kill "$sim" 2>/dev/null || true
}

echo "ucube: $ucube ($("$ucube" --version)); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
trial 1
read -r wall1 rss1 <"$work/time-1"
echo "1 terminal:   $wall1 s wall, peak RSS $((rss1 / 1024)) MB"
trial "$n"
read -r walln rssn <"$work/time-$n"
echo "$n terminals: $walln s wall, peak RSS $((rssn / 1024)) MB (--parallel $n)"
awk -v a="$wall1" -v b="$walln" -v r1="$rss1" -v rn="$rssn" -v n="$n" 'BEGIN {
    printf "wall time ratio: %.3f (target ≤ 1.3)\n", b / a
    printf "memory per extra terminal: %.2f MB ((%d − %d kB) / %d)\n", (rn - r1) / 1024 / (n - 1), rn, r1, n - 1
}'
