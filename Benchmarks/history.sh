#!/usr/bin/env bash
# What `ucube history` holds while it reads a large journal (issue 39: a 120 MB journal took more than 160 MB).
# Writes a journal of MB megabytes (payments of a start, eight steps and an outcome, as `pay` journals them), then
# runs `ucube history` and `ucube history totals` on it; prints the wall time and the peak RSS of each UCUBE against
# the goal: well under 160 MB for 120 MB.
#   Benchmarks/history.sh [MB] [UCUBE...]
# MB: the journal's size (default 120). UCUBE: built ucube binaries to compare (default: the release binary
# `make install` builds).
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib.sh

[ -x /usr/bin/time ] || { echo "history.sh: needs GNU time (/usr/bin/time): apt-get install time" >&2; exit 1; }

megabytes=${1:-120}
shift || true
if [ $# -eq 0 ]; then set -- "$(bench_ucube)"; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home XDG_STATE_HOME=$work/home/state XDG_CONFIG_HOME=$work/home/config XDG_RUNTIME_DIR=$work/run
mkdir -p "$XDG_STATE_HOME/ucube" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_STATE_HOME/ucube" "$XDG_RUNTIME_DIR"
journal=$XDG_STATE_HOME/ucube/journal.jsonl

awk -v bytes=$((megabytes * 1000 * 1000)) 'BEGIN {
    split("TransactionInit StartNFC BuildCandidateList TransactionStart TransactionProcess GetPlainTag GetSecuredTag TransactionFinalisation", steps, " ")
    for (n = 0; written < bytes; n++) {
        key = sprintf("%08x-0000-4000-8000-%012x", n, n)
        t = sprintf("2026-11-%02d", 1 + n % 28)
        line = sprintf("{\"amount\":%d,\"currency\":\"EUR\",\"device\":\"tcp://10.0.0.%d:5000\",\"kind\":\"start\",\"payment\":\"%s\",\"pid\":%d,\"requestID\":\"req-%d\",\"time\":\"%sT10:00:00.000Z\",\"type\":\"purchase\"}", 100 + n % 9000, n % 200, key, 1000 + n, n, t)
        print line; written += length(line) + 1
        for (s = 1; s <= 8; s++) {
            line = sprintf("{\"command\":\"%s\",\"kind\":\"step\",\"payment\":\"%s\",\"requestID\":\"req-%d\",\"result\":0,\"state\":\"waitingForCard\",\"time\":\"%sT10:00:0%d.000Z\"}", steps[s], key, n, t, s)
            print line; written += length(line) + 1
        }
        line = sprintf("{\"aid\":\"A0000000031010\",\"amount\":%d,\"applicationLabel\":\"VISA\",\"commands\":14,\"currency\":\"EUR\",\"entryMode\":\"contactless\",\"kind\":\"outcome\",\"maskedPAN\":\"476173******0119\",\"payment\":\"%s\",\"requestID\":\"req-%d\",\"status\":\"approved\",\"time\":\"%sT10:00:09.000Z\",\"type\":\"purchase\"}", 100 + n % 9000, key, n, t)
        print line; written += length(line) + 1
    }
}' >"$journal"
chmod 600 "$journal"
echo "journal: $(($(stat -c %s "$journal") / 1000000)) MB, $(wc -l <"$journal") records, $(grep -c '"kind":"start"' "$journal") payments"

for ucube in "$@"; do
    for command in "history" "history totals"; do
        status=0
        # shellcheck disable=SC2086
        /usr/bin/time -f "%e %M" -o "$work/time" "$ucube" $command >/dev/null 2>"$work/err" || status=$?
        read -r seconds kb <"$work/time"
        verdict=$(awk -v k="$kb" 'BEGIN { print (k < 160000 ? "met" : "NOT met") }')
        printf '%s %s: %s s, peak RSS %d kB, exit %d; goal < 160000 kB: %s\n' "$ucube" "$command" "$seconds" "$kb" \
            "$status" "$verdict"
        [ "$status" -eq 0 ] || head -3 "$work/err"
    done
done
