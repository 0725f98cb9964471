#!/usr/bin/env bash
# How fast a signal ends the operator's prompt (issue 41, item 3: "within a second"): `ucube test SUITE` on a
# terminal (a pseudo-terminal) against `ucube simulate --listen`, waiting for "press Enter when ready"; then SIGTERM,
# SIGINT or SIGHUP, and the time from the signal to the process's end, measured by Python on a clock of its own.
#   Benchmarks/signal-stop.sh [UCUBE] [RUNS]
# UCUBE: a built ucube (default: the release binary `make install` builds). RUNS: runs per signal (default 10). Prints
# each signal's median and slowest against the promise (1 s), and fails when a run's exit or TAP is not a stop's
# (exit 11, every case `# SKIP`). The test suite checks what ends the wait (OperatorWaitTests); this measures how fast.
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib.sh

command -v python3 >/dev/null || { echo "signal-stop.sh: needs python3" >&2; exit 1; }

ucube=$(bench_ucube ${1:+"$1"})
runs=${2:-10}
[ -x "$ucube" ] || { echo "signal-stop.sh: $ucube is not an executable ucube" >&2; exit 1; }
[[ $runs =~ ^[1-9][0-9]{0,3}$ ]] || { echo "signal-stop.sh: RUNS is 1 to 9999, not '$runs'" >&2; exit 1; }

work=$(mktemp -d)
sim=
cleanup() {
    [ -n "$sim" ] && kill "$sim" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
bench_home "$work"

cat >"$work/suite.json" <<'EOF'
{"name": "stop", "cases": [
  {"name": "first", "card": "visa-contact", "request": {"amount": "1.00"}, "expect": {"status": "APPROVED"}},
  {"name": "second", "card": "visa-contact", "request": {"amount": "2.00"}, "expect": {"status": "APPROVED"}}
]}
EOF

bench_simulator "$work" "$ucube" --card visa-contact

python3 - "$ucube" "tcp://127.0.0.1:$port" "$work/suite.json" "$runs" <<'EOF'
import os, pty, select, signal, statistics, subprocess, sys, time

ucube, device, suite, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
promise = 1.0
failed = False
for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    times = []
    for _ in range(runs):
        master, slave = pty.openpty()
        child = subprocess.Popen([ucube, "--device", device, "test", suite], stdin=slave,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        os.close(slave)
        seen, deadline = b"", time.monotonic() + 300
        while b"press Enter when ready" not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([child.stderr], [], [], 1)
            if ready:
                chunk = os.read(child.stderr.fileno(), 4096)
                if not chunk:
                    break
                seen += chunk
        if b"press Enter when ready" not in seen:
            child.kill()
            sys.exit(f"signal-stop.sh: no prompt within 300 s: {seen.decode(errors='replace')}")
        sent = time.monotonic()
        child.send_signal(signum)
        try:
            child.wait(timeout=60)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            print(f"{signum.name}: the process was still running 60 s after the signal (killed)")
            failed = True
        took = time.monotonic() - sent
        tap = child.stdout.read().decode(errors="replace")
        child.stderr.read()
        os.close(master)
        if child.returncode != 11 or "# SKIP" not in tap or "not ok" in tap:
            print(f"{signum.name}: exit {child.returncode}, not a stop's:\n{tap}")
            failed = True
        times.append(took)
    slowest = max(times)
    print(f"{signum.name}: {runs} runs, median {statistics.median(times):.3f} s, slowest {slowest:.3f} s; "
          f"promise < {promise:.0f} s: {'met' if slowest < promise else 'NOT met'}")
sys.exit(1 if failed else 0)
EOF
