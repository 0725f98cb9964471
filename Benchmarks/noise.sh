#!/usr/bin/env bash
# What a hostile TCP peer costs in memory (issue 39): the peak RSS of `ucube simulate` fed noise at full speed, then
# GetInfo commands by a host that never reads its answers, and of `ucube --device tcp://…` talking to a "terminal"
# that streams noise at full speed. The goal: every peak under 64 MB.
#   Benchmarks/noise.sh [UCUBE] [SECONDS]
# UCUBE: a built ucube (default: the release binary `make install` builds). SECONDS: how long each peer runs
# (default 30). Each flooding peer reconnects as soon as it is dropped, so the whole time is spent flooding. Needs
# python3 (the peers) and GNU time (/usr/bin/time, the client's peak).
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib.sh

[ -x /usr/bin/time ] || { echo "noise.sh: needs GNU time (/usr/bin/time): apt-get install time" >&2; exit 1; }
command -v python3 >/dev/null || { echo "noise.sh: needs python3" >&2; exit 1; }

ucube=$(bench_ucube ${1:+"$1"})
seconds=${2:-30}
goal_kb=$((64 * 1000))

work=$(mktemp -d)
pids=() sim=
cleanup() {
    for pid in "${pids[@]}" $sim; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
bench_home "$work"

# The peers: `noise` and `unread` connect to PORT and flood it for SECONDS, reconnecting when dropped; `server`
# listens on an ephemeral port (printed first) and streams noise at every connection for SECONDS. Each prints how
# many bytes it wrote and how many times it was dropped.
cat >"$work/peer.py" <<'EOF'
import os, socket, struct, sys, threading, time

def crc16(data):
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc

def getinfo(seq):
    body = bytes([seq, 0x50, 0x01, 0xC4, 0xD1])  # SEQ, GetInfo (0x5001), tags C4 D1
    inner = struct.pack(">H", len(body) - 3) + body
    return b"\x02" + inner + struct.pack(">H", crc16(inner)) + b"\x03"

kind, seconds = sys.argv[1], float(sys.argv[2])
if kind == "unread":
    block = b"".join(getinfo(s) for s in range(256)) * 32
elif kind == "server":
    # No STX: nothing a client could take for the start of a frame, so it reads noise until its own bound.
    block = bytes(b if b != 2 else 0x55 for b in os.urandom(65536))
else:
    block = os.urandom(65536)
end = time.monotonic() + seconds
written = dropped = 0

def flood(sock):
    global written, dropped
    try:
        while time.monotonic() < end:
            written += sock.send(block)
    except OSError:
        dropped += 1
    finally:
        sock.close()

if kind == "server":
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.5)
    print(listener.getsockname()[1], flush=True)
    while time.monotonic() < end:
        try:
            connection, _ = listener.accept()
        except socket.timeout:
            continue
        threading.Thread(target=flood, args=(connection,), daemon=True).start()
else:
    port = int(sys.argv[3])
    while time.monotonic() < end:
        sock = socket.socket()
        if kind == "unread":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(max(0.1, end - time.monotonic()))
        try:
            sock.connect(("127.0.0.1", port))
        except OSError:
            time.sleep(0.01)
            continue
        flood(sock)
print(f"{kind}: wrote {written / 1e6:.0f} MB in {seconds:.0f} s, dropped {dropped} times", file=sys.stderr, flush=True)
EOF

peak_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }
verdict() { [ "$1" -lt "$goal_kb" ] && echo "met" || echo "NOT met"; }

# 1. The simulator, flooded with noise, then with commands whose answers are never read.
bench_simulator "$work" "$ucube"
start_kb=$(peak_kb "$sim")
python3 "$work/peer.py" noise "$seconds" "$port"
after_noise_kb=$(peak_kb "$sim")
python3 "$work/peer.py" unread "$seconds" "$port"
after_unread_kb=$(peak_kb "$sim")
kill "$sim"
wait "$sim" 2>/dev/null || true
sim=
printf 'simulate: peak RSS %d kB at start, %d kB after %s s of noise, %d kB after %s s of unread GetInfo; goal < %d kB: %s\n' \
    "$start_kb" "$after_noise_kb" "$seconds" "$after_unread_kb" "$seconds" "$goal_kb" "$(verdict "$after_unread_kb")"
echo "simulate said (first lines): $(sort "$work/sim.err" | uniq -c | sort -rn | head -3 | tr -s ' ' | tr '\n' ';')"

# 2. The client, against a terminal that streams noise: one `info` after the other for the whole time.
python3 "$work/peer.py" server "$seconds" >"$work/server.out" &
pids+=("$!")
for _ in $(seq 1 100); do [ -s "$work/server.out" ] && break; sleep 0.1; done
terminal=tcp://127.0.0.1:$(head -1 "$work/server.out")
runs=0 worst_kb=0
end=$((SECONDS + seconds))
while [ $SECONDS -lt $end ]; do
    /usr/bin/time -f %M -o "$work/time" "$ucube" --device "$terminal" info >/dev/null 2>"$work/info.err" || true
    kb=$(tail -1 "$work/time")
    runs=$((runs + 1))
    [ "$kb" -gt "$worst_kb" ] && worst_kb=$kb
done
printf 'ucube info against a noise stream: %d runs in %s s, peak RSS %d kB; goal < %d kB: %s\n' \
    "$runs" "$seconds" "$worst_kb" "$goal_kb" "$(verdict "$worst_kb")"
echo "ucube said: $(grep -v '^$' "$work/info.err" | head -2 | tr '\n' ' ')"
