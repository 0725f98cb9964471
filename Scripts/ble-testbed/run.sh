#!/usr/bin/env bash
# The BLE test bed (issue 24): ucube against a uCube Touch over a real Bluetooth stack — the Linux kernel, BlueZ's
# bluetoothd and two btvirt LE controllers — in a QEMU virtual machine, with faults over the air.
#   Scripts/ble-testbed/run.sh [CASE...]
# Builds (or reuses) the VM image (build-image.sh), puts ucube, its libraries, the guest scripts and a signed
# firmware image in a folder shared over 9p, boots the VM once (qemu-system-x86_64 -accel tcg -smp 1), where
# guest/cases.sh runs every case (or only the CASEs named; an unknown name is exit 64), then prints the results, judges the VM's btmon capture
# with tshark, and exits 0 only when every case passed.
# Environment: UCUBE_BIN (the ucube to test; default: .build/debug/ucube, what `swift build` makes; a static
# `make` build works too), UCUBE_BLE_CACHE (default ~/.cache/ucube-ble: images, packages and the last run's share,
# whose out/ keeps every command's output), UCUBE_BLE_TIMEOUT (seconds the VM may run, default 7200: a safety net; on a machine busy with stress-ng --cpu 4 and a test suite the VM took 900 s, and beside five builds (load 20 to 25) it ran 5 of its 15 cases in 2400 s, where it takes 3 to 6 minutes alone),
# UCUBE_BLE_BLUETOOTHD_DEBUG=1 (bluetoothd -d, its log in out/bluetoothd-mtu*.log).
# Needs (Scripts/debian-packages.txt, `ble`; Scripts/setup.sh --test installs them): qemu-system-x86, debootstrap,
# busybox-static, cpio, e2fsprogs, tshark, a C compiler (cc, or the Swift toolchain's clang); root or sudo for the
# image's first build (debootstrap), and Debian's archive then.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="${UCUBE_BLE_CACHE:-$HOME/.cache/ucube-ble}"
say() { echo "ble-testbed: $*" >&2; }
started=$SECONDS

# The cases named must exist: an unknown one would run nothing and say only that there were no results.
known="$(grep -oE 'wanted [a-z0-9-]+' "$here/guest/cases.sh" | cut -d' ' -f2 | tr '\n' ' ')"
for case_name in "$@"; do
    case " $known" in
        *" $case_name "*) ;;
        *) say "no case '$case_name'; the cases: $known"; exit 64 ;;
    esac
done
for tool in qemu-system-x86_64 tshark ldd; do
    command -v "$tool" >/dev/null 2>&1 || { say "$tool is missing: bash Scripts/setup.sh --test installs it"; exit 69; }
done
ucube="${UCUBE_BIN:-$root/.build/debug/ucube}"
[ -x "$ucube" ] || { say "no ucube at $ucube: run swift build (or set UCUBE_BIN)"; exit 69; }

image="$("$here/build-image.sh")"
built=$SECONDS

# The share: ucube and the libraries it loads from outside glibc (a debug build loads the Swift runtime from the
# toolchain; the VM runs the same Debian release as this machine, so glibc is the VM's own), the guest scripts, the
# firmware image the update case loads, and out/ for the results.
share="$cache/share"
rm -rf "$share"
mkdir -p "$share/bin" "$share/lib" "$share/guest" "$share/out" "$share/tms"
cp "$ucube" "$share/bin/ucube"
ldd "$ucube" | awk '/=> \// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
        libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
        *) cp -L "$lib" "$share/lib/" ;;
    esac
done
cp "$here/guest/session.sh" "$here/guest/cases.sh" "$here/guest/peripheral.py" "$here/guest/bt.py" "$share/guest/"
# The shim that lets bluetoothd take an ExchangeMTU of 23 (host/l2cap-min-mtu.c), built with the C compiler this
# machine has: Debian's, or the Swift toolchain's clang. The VM runs the same Debian release, so it loads there.
compiler="$(command -v cc || command -v clang || true)"
[ -n "$compiler" ] || { say "no C compiler (cc or the Swift toolchain's clang) for host/l2cap-min-mtu.c"; exit 69; }
"$compiler" -shared -fPIC -O2 -o "$share/lib/l2cap-min-mtu.so" "$here/host/l2cap-min-mtu.c" -ldl
printf 'UCUBE_BLE_CASES=%q\nUCUBE_BLE_BLUETOOTHD_DEBUG=%q\n' "$*" "${UCUBE_BLE_BLUETOOTHD_DEBUG:-}" >"$share/cases.env"

# The SVPP firmware image the TMS simulator's catalogue holds (6.0.1.0, made 600 KiB: 302 Load blocks), with its
# signature: written by `ucube simulate --tms` on its first start, then that simulator is stopped.
tms_home="$(mktemp -d)"
UCUBE_TMS_SIM_HOME="$tms_home" "$ucube" simulate --tms 127.0.0.1:0 --tms-firmware-size 600 >"$tms_home/log" 2>&1 &
tms_pid=$!
for _ in $(seq 300); do
    [ -f "$tms_home/catalogue/catalogue.json" ] && break
    sleep 0.1
done
kill "$tms_pid" 2>/dev/null || true
wait "$tms_pid" 2>/dev/null || true
cp "$tms_home"/catalogue/svpp-*.bin "$share/tms/svpp.bin"
cp "$tms_home"/catalogue/svpp-*.sig "$share/tms/svpp.sig"
rm -rf "$tms_home"

# While the VM runs: a line per case as it ends (the guest appends it to results.tsv over 9p), and one a minute while
# none does, so that a CI log is never silent through the boot or a slow case (issue 41).
follow_results() {
    local seen=0 quiet=0 count name verdict seconds detail
    while sleep 10; do
        count=$(wc -l 2>/dev/null <"$share/out/results.tsv" || echo 0)
        if [ "$count" -gt "$seen" ]; then
            while IFS=$'\t' read -r name verdict seconds detail; do
                say "case $name: $verdict in $seconds s${detail:+: $detail}"
            done < <(sed -n "$((seen + 1)),${count}p" "$share/out/results.tsv")
            seen=$count
            quiet=0
        else
            quiet=$((quiet + 10))
            if [ "$quiet" -ge 60 ]; then
                say "the VM is running ($((SECONDS - booted)) s, $seen cases done)"
                quiet=0
            fi
        fi
    done
}

# The guest's clock counts the instructions it runs (-icount, 1 ns each), not the host's seconds: on a host whose cores
# are busy the VM is starved of CPU, and with a real-time clock the guest kernel's own 2 s HCI command timeout fired
# while btvirt, in the same VM, had had no CPU to answer, so bluetoothd never powered hci0 and hci1 (three cold runs
# beside stress-ng and a build, issue 36). Counted, a guest deadline measures the guest's own work: what the VM does
# alone, it does the same way however busy the host is. Waits on the host side stay safety nets in real seconds.
say "booting the VM (kernel $(cat "$image/kernel-version"); TCG, one CPU, the guest's clock counting its instructions)"
booted=$SECONDS
follow_results &
follower=$!
status=0
timeout "${UCUBE_BLE_TIMEOUT:-7200}" qemu-system-x86_64 -accel tcg -icount shift=0 -smp 1 -m 1024 -nographic -no-reboot \
    -kernel "$image/vmlinuz" -initrd "$image/initrd.gz" \
    -append "console=ttyS0 root=/dev/vda panic=-1 quiet loglevel=3" \
    -drive "file=$image/rootfs.ext4,format=raw,if=virtio,snapshot=on" \
    -fsdev "local,id=share,path=$share,security_model=none" -device virtio-9p-pci,fsdev=share,mount_tag=share \
    -nic none </dev/null >"$share/out/console.log" 2>&1 || status=$?
ran=$SECONDS
kill "$follower" 2>/dev/null || true
wait "$follower" 2>/dev/null || true
if [ "$status" -eq 124 ]; then say "the VM did not finish within ${UCUBE_BLE_TIMEOUT:-7200} s"; fi

results="$share/out/results.tsv"
if [ ! -s "$results" ]; then
    say "no results: the VM's console and session log follow"
    tail -30 "$share/out/console.log" >&2 || true
    tail -30 "$share/out/session.log" >&2 || true
    exit 1
fi

# tshark judges ucube's reading of the VM's capture: the same ATT writes on TxRx, the same records carrying
# Multiple Handle Value Notifications (0x23, the way BlueZ notifies), and the frames ucube recorded are the frames
# ucube decoded from the capture.
if grep -q '^record-capture' "$results"; then
    capture="$share/out/capture.btsnoop"
    tshark -r "$capture" -T fields -e frame.number -e btatt.opcode -e btatt.handle \
        -Y 'btatt.opcode == 0x12 || btatt.opcode == 0x52 || btatt.opcode == 0x1b || btatt.opcode == 0x23' \
        >"$share/out/tshark.tsv" 2>/dev/null || true
    verdict="$(python3 - "$share/out/decode.json" "$share/out/tshark.tsv" "$share/out/recording.json" <<'PY'
import json, sys
decode = json.load(open(sys.argv[1]))
rows = [l.split("\t") for l in open(sys.argv[2]).read().splitlines() if l]
problems = []
if len(decode.get("txRx", [])) != 1:
    problems.append("ucube found %d TxRx handles" % len(decode.get("txRx", [])))
handle = decode["txRx"][0]["handle"] if decode.get("txRx") else -1
theirs_writes = [int(r[0]) for r in rows if r[1] in ("0x12", "0x52") and int(r[2] or "0", 16) == handle]
ours_writes = [a["record"] for a in decode["att"] if a["opcode"] in (0x12, 0x52) and a["handle"] == handle]
if theirs_writes != ours_writes or not ours_writes:
    problems.append("TxRx writes: tshark %d, ucube %d" % (len(theirs_writes), len(ours_writes)))
theirs_multi = sorted({int(r[0]) for r in rows if r[1] == "0x23"})
ours_multi = sorted({a["record"] for a in decode["att"] if a["opcode"] == 0x23})
if theirs_multi != ours_multi or not ours_multi:
    problems.append("0x23 notifications: tshark %d records, ucube %d" % (len(theirs_multi), len(ours_multi)))
if decode["txRx"] and decode["txRx"][0]["notifications"] == 0:
    problems.append("ucube counted no notification on TxRx")
def command_of(hexed):
    raw = bytes.fromhex(hexed)
    return "%02X%02X" % (raw[4], raw[5]) if len(raw) > 5 else "?"
recorded = [(l.split(" ")[0], command_of(l.split(" ")[3])) for l in open(sys.argv[3]).read().splitlines()
            if l[:2] in ("> ", "< ") and len(l.split(" ")) >= 4]
decoded = [(">" if f.get("frame", {}).get("direction") == "command" else "<", f.get("frame", {}).get("commandID", "?"))
           for f in decode["frames"]]
if recorded != decoded or not recorded:
    problems.append("frames: %d recorded, %d decoded from the capture, not the same commands in the same order" % (
        len(recorded), len(decoded)))
print("; ".join(problems) if problems else
      "PASS: %d TxRx writes and %d 0x23 notifications as tshark lists them; %d frames, as recorded" % (
          len(ours_writes), len(ours_multi), len(decoded)))
PY
)" || verdict="the judge failed"
    case "$verdict" in
        PASS*) printf 'tshark-judge\tPASS\t0\t%s\n' "${verdict#PASS: }" >>"$results" ;;
        *) printf 'tshark-judge\tFAIL\t0\t%s\n' "$verdict" >>"$results" ;;
    esac
fi

printf '%-26s %-5s %7s  %s\n' CASE "" SECONDS DETAIL
while IFS=$'\t' read -r name verdict seconds detail; do
    printf '%-26s %-5s %7s  %s\n' "$name" "$verdict" "$seconds" "$detail"
done <"$results"
failed=$(awk -F'\t' '$2 != "PASS"' "$results" | wc -l)
passed=$(awk -F'\t' '$2 == "PASS"' "$results" | wc -l)
say "$passed passed, $failed failed; image $((built - started)) s, share $((booted - built)) s, VM $((ran - booted)) s, total $((SECONDS - started)) s"
say "every command's output: $share/out/cases/"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
