#!/usr/bin/env bash
# What `ucube fleet-merge` holds while it reads a shard's report (issue 39: 20 MB of short lines took 612 MB, 80 MB
# took 2.2 GB). Two shards' reports of MB megabytes each, mostly short progress lines (as mdm-update writes them), are
# merged; prints the wall time and the peak RSS of each UCUBE, against the goal: under 64 MB.
#   [SHORT=1] Benchmarks/fleet-merge.sh [MB] [UCUBE...]
# MB: the size of each report (default 20). UCUBE: built ucube binaries to compare (default: the release binary
# `make install` builds). SHORT=1: the filler lines are two bytes each ("x" and its newline), the issue's case.
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib.sh

[ -x /usr/bin/time ] || { echo "fleet-merge.sh: needs GNU time (/usr/bin/time): apt-get install time" >&2; exit 1; }

megabytes=${1:-20}
shift || true
if [ $# -eq 0 ]; then set -- "$(bench_ucube)"; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home XDG_STATE_HOME=$work/home/state XDG_CONFIG_HOME=$work/home/config
mkdir -p "$HOME"

# One shard: for each of its 8 terminals a start, progress lines until the report is MB megabytes, an end; then the
# summary. The lines are what `ucube --json mdm-update --devices … --shard I/2` prints.
report() {
    local shard=$1 out=$2
    awk -v shard="$shard" -v bytes=$((megabytes * 1000 * 1000)) -v short="${SHORT:-0}" 'BEGIN {
        t = "\"time\":\"2026-11-28T10:00:00.000Z\""
        for (d = 1; d <= 8; d++) {
            device = sprintf("tcp://10.0.%d.%d:5000", shard, d)
            printf "{\"event\":\"start\",\"device\":\"%s\",%s}\n", device, t
            for (n = 0; written < bytes * d / 8; n++) {
                line = short == 1 ? "x" : sprintf("{\"event\":\"progress\",\"device\":\"%s\",\"item\":\"SVPP firmware\",\"block\":%d,%s}", device, n, t)
                print line
                written += length(line) + 1
            }
            printf "{\"event\":\"end\",\"device\":\"%s\",\"result\":\"ok\",\"exit\":0,\"exitName\":\"ok\",\"seconds\":1.0,\"earlier\":false,%s}\n", device, t
        }
        printf "{\"event\":\"summary\",\"command\":\"mdm-update\",\"devices\":8,\"succeeded\":8,\"failed\":0,\"notStarted\":0,\"earlier\":0,\"seconds\":9.0,\"shard\":\"%d/2\",%s}\n", shard, t
    }' >"$out"
}
report 1 "$work/shard-1.jsonl"
report 2 "$work/shard-2.jsonl"
size=$(($(stat -c %s "$work/shard-1.jsonl") + $(stat -c %s "$work/shard-2.jsonl")))
lines=$(cat "$work"/shard-*.jsonl | wc -l)
echo "two reports: $((size / 1000000)) MB, $lines lines"

for ucube in "$@"; do
    status=0
    /usr/bin/time -f "%e %M" -o "$work/time" "$ucube" fleet-merge "$work/shard-1.jsonl" "$work/shard-2.jsonl" \
        >"$work/out" 2>"$work/err" || status=$?
    read -r seconds kb <"$work/time"
    grep -q "16 ok, 0 failed" "$work/out" || { echo "$ucube: not merged as expected (exit $status):"; cat "$work/err"; }
    verdict=$(awk -v k="$kb" 'BEGIN { print (k < 64000 ? "met" : "NOT met") }')
    printf '%s: merged in %s s, peak RSS %d kB (%d kB per MB read), exit %d; goal < 64000 kB: %s\n' "$ucube" "$seconds" \
        "$kb" "$((kb * 1000000 / size))" "$status" "$verdict"
done
