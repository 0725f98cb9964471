#!/usr/bin/env bash
# Start-up cost of ucube, against a Swift hello world built in the same run (`swiftc -O`, dynamically linked).
#   Benchmarks/startup.sh [UCUBE]
# UCUBE is a built ucube; by default `make` builds the release binary `make install` installs and that is timed.
# Prints hyperfine's figures (-N, no shell; 20 warm-up runs) and three ratios of medians against their targets
# (issue 27: "start-up at a hello world's"):
#   ucube --version / hello world            ≤ 1.2
#   ucube --help / hello world               ≤ 1.2   (at 100 columns: any width costs the same, not only 80)
#   ucube --device sim info / ucube --version ≤ 1.5
# Set-up: Scripts/setup.sh --bench (hyperfine).
set -euo pipefail
cd "$(dirname "$0")/.."

command -v hyperfine >/dev/null || { echo "startup.sh: needs hyperfine: Scripts/setup.sh --bench" >&2; exit 1; }

# shellcheck source=Benchmarks/lib.sh
source Benchmarks/lib.sh
ucube=$(bench_ucube "$@")

work=$(mktemp -d)
# The runtime directory (link session, lock, control socket) on a tmpfs, as $XDG_RUNTIME_DIR is on a systemd
# machine (/run/user/UID): each command renames its session file and binds a socket there, and on a disk those
# metadata writes wait, now and then, for the journal.
runtime=$(mktemp -d -p /dev/shm 2>/dev/null || { mkdir -p "$work/run" && echo "$work/run"; })
trap 'rm -rf "$work" "$runtime"' EXIT
printf 'print("hello")\n' >"$work/hello.swift"
swiftc -O "$work/hello.swift" -o "$work/hello"

# A home of its own: the simulator's state, the logs and the link session are created by the first run, outside
# the timing, and the user's own files are neither read nor changed.
export HOME=$work/home XDG_STATE_HOME=$work/home/state XDG_CONFIG_HOME=$work/home/config XDG_RUNTIME_DIR=$runtime
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
unset UCUBE_DEVICE UCUBE_SIM_HOME UCUBE_SIM_SEED UCUBE_SIM_TIME_SCALE
# The help is wrapped at $COLUMNS: a width other than the 80 it falls back to, to time the general case.
export COLUMNS=100
"$ucube" --device sim info >/dev/null

echo "ucube: $ucube ($("$ucube" --version); $(du -h "$ucube" | cut -f1), $(ldd "$ucube" | grep -c '=>') shared libraries)"
echo "hello: swiftc -O, $(ldd "$work/hello" | grep -c '=>') shared libraries; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
hyperfine -N --warmup 20 --min-runs 200 --style basic --export-csv "$work/times.csv" \
    --command-name hello "$work/hello" \
    --command-name "ucube --version" "$ucube --version" \
    --command-name "ucube --help" "$ucube --help" \
    --command-name "ucube --device sim info" "$ucube --device sim info"

# times.csv: command,mean,stddev,median,user,system,min,max (seconds).
awk -F, '
    NR > 1 { mean[$1] = $2 * 1000; median[$1] = $4 * 1000; cpu[$1] = ($5 + $6) * 1000 }
    END {
        printf "\n%-26s %10s %10s %10s\n", "", "median ms", "mean ms", "CPU ms"
        n = split("hello|ucube --version|ucube --help|ucube --device sim info", names, "|")
        for (i = 1; i <= n; i++) printf "%-26s %10.2f %10.2f %10.2f\n", names[i], median[names[i]], mean[names[i]], cpu[names[i]]
        printf "\n%-42s %6s %6s   %s\n", "ratio", "wall", "CPU", "target (wall)"
        ratio("ucube --version", "hello", "<= 1.2")
        ratio("ucube --help", "hello", "<= 1.2")
        ratio("ucube --device sim info", "ucube --version", "<= 1.5")
        printf "(wall: of medians; CPU: of mean user + system time, which other load on the machine disturbs less)\n"
    }
    function ratio(a, b, target,    r, limit, ok) {
        r = median[a] / median[b]
        limit = substr(target, index(target, " ") + 1)
        ok = (target ~ /<=/) ? r <= limit : r < limit
        printf "%-42s %6.2f %6.2f   %s  %s\n", a " / " b, r, cpu[a] / cpu[b], target, ok ? "met" : "NOT MET"
    }' "$work/times.csv"
