#!/usr/bin/env bash
# Memory and time of `ucube decode` on a large recording (issue 27: it streams, so its peak stays flat).
#   Benchmarks/decode.sh [UCUBE] [MB]
# UCUBE is a built ucube (e.g. .build/release/ucube); by default `make` builds the release binary `make install`
# installs and that is measured. MB (default 8) is the firmware image the recording carries.
#
# The recording is what `--record FILE` writes for a firmware update of an MB-megabyte image: InstallForLoad, then
# one Load of 2,040 bytes per block and its answer, every frame a line of hex (8 MB: 4,113 Loads, about 17 MB). It is
# made here with python3 (frames with their CRC-16/XMODEM, spec §2.5), then decoded from standard input as text and
# with --json; /usr/bin/time -v gives each run's wall time and maximum resident set size. Target: ≤ 40 MB either way.
set -euo pipefail
cd "$(dirname "$0")/.."

[ -x /usr/bin/time ] || { echo "decode.sh: needs GNU time (/usr/bin/time): apt-get install time" >&2; exit 1; }
command -v python3 >/dev/null || { echo "decode.sh: needs python3 to write the recording" >&2; exit 1; }

# shellcheck source=Benchmarks/lib.sh
source Benchmarks/lib.sh
ucube=$(bench_ucube ${1:+"$1"})
megabytes=${2:-8}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home XDG_STATE_HOME=$work/home/state XDG_CONFIG_HOME=$work/home/config
mkdir -p "$HOME"

python3 - "$megabytes" >"$work/update.rec" <<'PY'
import random, sys

table = []
for byte in range(256):
    crc = byte << 8
    for _ in range(8):
        crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
    table.append(crc & 0xFFFF)

def frame(seq, command, body):
    covered = bytes([len(body) >> 8, len(body) & 0xFF, seq, command >> 8, command & 0xFF]) + body
    crc = 0
    for b in covered:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ b]
    return (b"\x02" + covered + bytes([crc >> 8, crc & 0xFF, 3])).hex().upper()

size = int(sys.argv[1]) * 1048576
image = random.Random(27).randbytes(size)
out = sys.stdout
out.write("ucube-recording 1\ncommand ucube --device sim mdm-update --image svpp.bin --signature svpp.sig\n")
out.write("link sim session=clean secured=0 next=0\n")
t, seq = 0.0, 0
def exchange(command, payload):
    global t, seq
    t += 0.0022
    out.write("> %.6f plain %s\n" % (t, frame(seq, command, payload)))
    t += 0.0002
    out.write("< %.6f plain %s\n" % (t, frame(seq, command, b"\x00\x00")))
    seq = (seq + 1) % 256
exchange(0x5160, random.Random(5).randbytes(72) + bytes([0x02, 0x00, 0x00]))  # InstallForLoad: a signature, PLAIN
blocks = [image[i:i + 2040] for i in range(0, size, 2040)]
for index, block in enumerate(blocks):
    exchange(0x5161, bytes([1 if index == len(blocks) - 1 else 0, len(block) >> 8, len(block) & 0xFF]) + block)
out.write("end %.6f\n" % (t + 0.001))
PY

bytes=$(stat -c %s "$work/update.rec")
frames=$(grep -c '^[<>]' "$work/update.rec")
echo "ucube: $ucube ($("$ucube" --version))"
echo "recording: $megabytes MB image, $frames frames, $(awk -v b="$bytes" 'BEGIN { printf "%.1f MB", b / 1e6 }'); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '\n%-16s %10s %12s %14s   %s\n' "" "wall s" "max RSS MB" "output MB" "target (≤ 40 MB)"
for form in text json; do
    flags=()
    [ "$form" = json ] && flags=(--json)
    /usr/bin/time -v -o "$work/time.$form" "$ucube" decode "${flags[@]}" <"$work/update.rec" >"$work/out.$form"
    awk -v form="decode ${flags[*]:-}" -v out="$(stat -c %s "$work/out.$form")" '
        /Maximum resident set size/ { rss = $NF / 1024 }
        /Elapsed \(wall clock\)/ { n = split($NF, p, ":"); wall = (n == 3) ? p[1] * 3600 + p[2] * 60 + p[3] : p[1] * 60 + p[2] }
        END { printf "%-16s %10.2f %12.1f %14.1f   %s\n", form, wall, rss, out / 1e6, rss <= 40 ? "met" : "NOT MET" }
    ' "$work/time.$form"
done
