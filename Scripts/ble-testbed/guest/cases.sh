# The BLE test bed's cases (issue 24), sourced by guest/session.sh in the VM once btvirt runs. ucube drives hci0;
# guest/peripheral.py is the uCube Touch on hci1, relaying to `ucube simulate --codec ble`. Each case writes its
# commands' output under /share/out/cases/NAME/ and one line to /share/out/results.tsv:
#   NAME <TAB> PASS|FAIL <TAB> seconds <TAB> what failed
# The host (Scripts/ble-testbed/run.sh) prints them and judges the btmon capture with tshark.
# UCUBE_BLE_CASES (space-separated names, from the share's cases.env) runs only those; default: all of them.

export HOME=/tmp/home UCUBE_BT_ADAPTER=hci0 UCUBE_SIM_HOME=/tmp/sim
# Every command names the terminal, so that none can fall back to the built-in simulator.
export UCUBE_DEVICE="ble://YT-Touch 0001"
mkdir -p "$HOME" "$UCUBE_SIM_HOME"
[ -f /share/cases.env ] && . /share/cases.env
results=$out/results.tsv
: >"$results"
name=YT-Touch\ 0001
sim_pid= peripheral_pid= bluetoothd_pid= btmon_pid=

# Waits up to $3 seconds for the extended regular expression $2 in file $1.
wait_for() {
    i=0
    while [ $i -lt $(($3 * 10)) ]; do
        grep -Eq "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

stop() { # PID...: ends processes this script started, and waits for them.
    for pid in "$@"; do
        [ -n "$pid" ] || continue
        kill "$pid" 2>/dev/null
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
}

# bluetoothd with plain ATT (`[GATT] Channels = 1`: a uCube has no EATT) and the ATT MTU it offers ($1: 23 to 517).
# Under 48, bluetoothd runs with the host-built shim /share/lib/l2cap-min-mtu.so (Scripts/ble-testbed/host/): without
# it, bluetoothd refuses any ExchangeMTU under 48 (its BR/EDR socket is held to the BR/EDR minimum).
start_bluetoothd() {
    stop "$peripheral_pid" "$bluetoothd_pid"
    peripheral_pid= bluetoothd_pid=
    printf '[General]\nName = ucube-ble\n[GATT]\nChannels = 1\nExchangeMTU = %s\n' "$1" >/etc/bluetooth/main.conf
    preload=
    [ "$1" -lt 48 ] && preload=/share/lib/l2cap-min-mtu.so
    LD_PRELOAD=$preload /usr/libexec/bluetooth/bluetoothd -n ${UCUBE_BLE_BLUETOOTHD_DEBUG:+-d} \
        >"$out/bluetoothd-mtu$1.log" 2>&1 &
    bluetoothd_pid=$!
    python3 /share/guest/bt.py wait-adapters hci0 hci1 || { log "bluetoothd did not bring up hci0 and hci1"; return 1; }
    log "bluetoothd (ExchangeMTU $1) up"
}

# The terminal: the simulator (card $1, then more `ucube simulate` options) and the peripheral (options after --).
start_terminal() {
    stop "$peripheral_pid" "$sim_pid"
    peripheral_pid= sim_pid=
    python3 /share/guest/bt.py disconnect-all hci0 hci1 || log "a link is still up"
    card=$1
    shift
    sim_args=
    while [ $# -gt 0 ] && [ "$1" != -- ]; do sim_args="$sim_args $1"; shift; done
    [ "${1:-}" = -- ] && shift
    # shellcheck disable=SC2086
    ucube simulate --listen 127.0.0.1:5000 --codec ble --seed 24 --card "$card" $sim_args >"$dir/simulator.log" 2>&1 &
    sim_pid=$!
    wait_for "$dir/simulator.log" 'listening on' 300 || { note "the simulator did not start"; return 1; }
    python3 /share/guest/peripheral.py --simulator 5000 --name "$name" "$@" 2>"$dir/peripheral.log" &
    peripheral_pid=$!
    wait_for "$dir/peripheral.log" 'advertising as' 300 || { note "the peripheral did not advertise"; return 1; }
}

# Case bookkeeping.
begin() {
    case_name=$1
    dir=$out/cases/$1
    mkdir -p "$dir"
    case_failures=
    case_start=$(cut -d' ' -f1 /proc/uptime)
    step=0
    log "case $1"
}
note() { case_failures="$case_failures${case_failures:+; }$*"; log "  FAIL: $*"; }
finish() {
    seconds=$(awk -v a="$case_start" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')
    if [ -z "$case_failures" ]; then
        printf '%s\tPASS\t%s\t\n' "$case_name" "$seconds" >>"$results"
    else
        printf '%s\tFAIL\t%s\t%s\n' "$case_name" "$seconds" "$case_failures" >>"$results"
    fi
}
wanted() { [ -z "${UCUBE_BLE_CASES:-}" ] || case " $UCUBE_BLE_CASES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

journal_size() { ucube history --json 2>/dev/null | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))' 2>/dev/null || echo 0; }

# Runs `ucube ARGS` (at most 600 s, a safety net, then SIGTERM, and SIGKILL 10 s later); its stdout, stderr and status go to $dir/N.{out,err,rc}; sets $rc, $o, $e.
# Before a payment, notes how many payments the journal holds (expect_journal wants one more).
run() {
    case " $* " in *" pay "*) journal_before=$(journal_size) ;; esac
    step=$((step + 1))
    o=$dir/$step.out e=$dir/$step.err
    echo "ucube $*" >"$dir/$step.cmd"
    timeout -k 10 600 ucube "$@" >"$o" 2>"$e"
    rc=$?
    echo "$rc" >"$dir/$step.rc"
    log "  ucube $* -> $rc"
}
expect_rc() { [ "$rc" = "$1" ] || note "step $step (ucube $(cat "$dir/$step.cmd" | cut -c7-)): exit $rc, expected $1: $(tail -c 300 "$e" | tr '\n' ' ')"; }
expect_out() { grep -Eq -- "$1" "$o" || note "step $step: stdout lacks /$1/"; }
expect_out_text() { grep -Fq -- "$1" "$o" || note "step $step: stdout lacks '$1'"; }
expect_no_out() { ! grep -Eq -- "$1" "$o" || note "step $step: stdout has /$1/"; }
expect_err() { grep -Eq -- "$1" "$e" || note "step $step: stderr lacks /$1/"; }
# The last payment added exactly one entry to the journal (`ucube history --json`), and its status is $1.
expect_journal() {
    ucube history --json >"$dir/history.json" 2>"$dir/history.err"
    why=$(python3 - "$dir/history.json" "$1" "$((journal_before + 1))" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
if len(rows) != int(sys.argv[3]):
    print("%d payments journalled, expected %s" % (len(rows), sys.argv[3]))
else:
    newest = max(rows, key=lambda r: r.get("startedAt", ""))
    if newest.get("status") != sys.argv[2]:
        print("the newest payment is %s, expected %s (%s)" % (newest.get("status"), sys.argv[2], newest.get("reason", "")))
PY
)
    [ -z "$why" ] || note "journal: $why"
}
journal_before=0

start_bluetoothd 517 || exit 1

if wanted scan; then
    begin scan
    start_terminal visa-contact
    run scan --timeout 5 --json
    expect_rc 0
    expect_out "\"name\": \"$name\""
    expect_out '"model": "uCube Touch \(BLE\)"'
    # btvirt's controllers report RSSI 127, "not available" (Core Vol 4 Part E 7.7.65.2): unknown, not 127 dBm.
    expect_out '"rssi": null'
    run scan --timeout 5
    expect_rc 0
    expect_out "$name +[0-9A-F:]{17} +unknown +uCube Touch"
    expect_no_out '127 dBm'
    finish
fi

if wanted starts-off; then
    begin starts-off
    start_terminal visa-contact -- --start-off
    run --trace connect "$name"
    expect_rc 0
    expect_err 'HState 30'
    expect_err 'writing the connection password'
    expect_err 'terminal powered on'
    expect_out 'serial number'
    grep -q 'password accepted' "$dir/peripheral.log" || note "the peripheral did not accept a password"
    finish
fi

if wanted info; then
    begin info
    start_terminal visa-contact
    run info --json
    expect_rc 0
    expect_out '"serialNumber"|"serial"'
    finish
fi

if wanted contact-approved; then
    begin contact-approved
    start_terminal visa-contact
    run --trace pay 5 --authorize approve
    expect_rc 0
    expect_out APPROVED
    expect_journal APPROVED
    # ExchangeMTU 517: BlueZ negotiates 517, so ucube writes (and the peripheral notifies) more than 20 bytes at once.
    grep -Eq '^ble> write .*\((2[1-9]|[3-9][0-9]|[1-9][0-9]{2}) bytes\)' "$e" || note "MTU 517: no write longer than 20 bytes"
    grep -Eq 'ble< notification.*\((2[1-9]|[3-9][0-9]|[1-9][0-9]{2}) bytes\)' "$e" || note "MTU 517: no notification longer than 20 bytes"
    ! grep -q 4761739001010010 "$e" "$o" || note "a clear PAN in the output"
    finish
fi

if wanted contact-declined; then
    begin contact-declined
    start_terminal visa-contact
    run pay 5 --authorize decline
    expect_rc 10
    expect_out DECLINED
    expect_journal DECLINED
    finish
fi

if wanted contactless-approved; then
    begin contactless-approved
    start_terminal visa-contactless
    run pay 5 --authorize approve
    expect_rc 0
    expect_out APPROVED
    expect_journal APPROVED
    finish
fi

if wanted contactless-declined; then
    begin contactless-declined
    start_terminal visa-contactless-declined
    run pay 5 --authorize approve
    expect_rc 10
    expect_out DECLINED
    expect_journal DECLINED
    finish
fi

if wanted record-capture; then
    begin record-capture
    start_terminal visa-contact
    # The central's side only (-i hci0): without it each PDU appears twice, once per controller.
    btmon -i hci0 -w "$out/capture.btsnoop" >/dev/null 2>&1 &
    btmon_pid=$!
    sleep 1
    run --record "$out/recording.json" info
    expect_rc 0
    sleep 1
    stop "$btmon_pid"
    btmon_pid=
    [ -s "$out/capture.btsnoop" ] || note "btmon wrote no capture"
    run decode --as btsnoop "$out/capture.btsnoop" --json
    expect_rc 0
    cp "$o" "$out/decode.json"
    finish
fi

# Faults over the air. Each drop is the peripheral disconnecting the link right after the host's command (which it
# relays, then answers no more); the next command must work on a new link.
if wanted drop-card-wait; then
    begin drop-card-wait
    start_terminal visa-contact -- --drop-on 5530 --drop-delay 0.5
    run pay 5 --authorize approve
    expect_rc 5
    expect_out ERROR_DISCONNECT
    # Told by BlueZ's Connected=false at once, not 30 s later when BlueZ removes the device object.
    expect_err 'dropped the BLE link \(BlueZ: Connected=false\)'
    expect_journal ERROR_DISCONNECT
    grep -q 'fault: command 5530' "$dir/peripheral.log" || note "the peripheral did not drop at NFCStartTransaction (the card wait)"
    # The link returns: the next command and the next payment work.
    run info
    expect_rc 0
    run pay 5 --authorize approve
    expect_rc 0
    expect_journal APPROVED
    finish
fi

# The link drops while the terminal still waits for a card (no card comes), and the terminal outlives it: the next
# ucube finds the wait pending, and only a reset (CancelAll) makes it answer anything but busy (spec §9).
if wanted drop-pending-card-wait; then
    begin drop-pending-card-wait
    start_terminal card-timeout -- --drop-on 5530 --drop-delay 0.5
    run pay 5 --authorize approve --card-timeout 60
    expect_rc 5
    expect_out ERROR_DISCONNECT
    expect_journal ERROR_DISCONNECT
    grep -q 'fault: command 5530' "$dir/peripheral.log" || note "the peripheral did not drop at NFCStartTransaction"
    # The link returns to a terminal still waiting: info works, and the next payment runs its course.
    run info
    expect_rc 0
    run pay 5 --authorize approve --card-timeout 2
    expect_rc 12
    expect_out CARD_WAIT_FAILED
    expect_journal CARD_WAIT_FAILED
    finish
fi

if wanted drop-transaction-process; then
    begin drop-transaction-process
    start_terminal visa-contact -- --drop-on 5512 --drop-delay 0.2
    run pay 5 --authorize approve
    expect_rc 5
    expect_out ERROR_DISCONNECT
    # Told by BlueZ's Connected=false at once, not 30 s later when BlueZ removes the device object.
    expect_err 'dropped the BLE link \(BlueZ: Connected=false\)'
    expect_journal ERROR_DISCONNECT
    grep -q 'fault: command 5512' "$dir/peripheral.log" || note "the peripheral did not drop at TransactionProcess"
    run info
    expect_rc 0
    finish
fi

if wanted silent; then
    begin silent
    # The peripheral keeps the link and stops answering from TransactionFinalisation on (after TransactionProcess,
    # whose own bound is 65 s: a cardholder may be entering an offline PIN; a payment no longer sends GetSecuredTag by
    # default, docs/protocol.md §8.6).
    start_terminal visa-contact -- --silent-on 5513
    run --rpc-timeout 5 pay 5 --authorize approve
    # The payment ends ERROR (exit 13), saying which command went unanswered.
    expect_rc 13
    expect_err 'no answer to 0x5513 TransactionFinalisation within 5.0 seconds'
    # One journalled outcome for the payment cut short, not a payment left running.
    expect_journal ERROR
    grep -q 'fault: silent from command 5513' "$dir/peripheral.log" || note "the peripheral was never silent"
    run info
    expect_rc 0
    finish
fi

if wanted update; then
    begin update
    # ExchangeMTU 247 (244-byte writes): at 517, ucube's 512-byte Write Requests are answered "Invalid Attribute
    # Value Length" by something below bluetoothd (its debug log never shows the request: the kernel or btvirt).
    start_bluetoothd 247
    start_terminal visa-contact -- --drop-on 5161:40 --drop-delay 0.2
    run info
    old=$(grep -Eo 'firmware \(SVPP\): [0-9.]+' "$o")
    btmon -i hci0 -w "$dir/update.btsnoop" >/dev/null 2>&1 &
    btmon_pid=$!
    run --trace mdm-update --file /share/tms/svpp.bin --signature /share/tms/svpp.sig
    stop "$btmon_pid"
    btmon_pid=
    # The update fails (exit 9, the item not installed), saying where and why.
    expect_rc 9
    # 302 Load blocks (run.sh makes the image 600 KiB): "a few hundred".
    expect_out 'Load block 40/302 .*dropped the BLE link'
    expect_out 'keeps its installed version'
    grep -q 'fault: command 5161' "$dir/peripheral.log" || note "the peripheral did not drop at Load block 40"
    run info
    expect_rc 0
    [ -n "$old" ] && expect_out_text "$old"
    run mdm-update --file /share/tms/svpp.bin --signature /share/tms/svpp.sig
    expect_rc 0
    expect_out 'installed'
    run info
    expect_out 'firmware \(SVPP\): 6\.0\.1\.0'
    finish
fi

# A payment at ATT MTU $1 (bluetoothd's ExchangeMTU), then GetInfo: ucube writes at most MTU - 3 bytes and the
# peripheral notifies at most MTU - 5 (BlueZ's 0x23 framing), the long chunks exactly that (`--trace` lists each).
mtu_case() {
    mtu=$1
    begin "mtu-$mtu"
    if start_bluetoothd "$mtu"; then
        start_terminal visa-contact
        run --trace pay 5 --authorize approve
        expect_rc 0
        expect_out APPROVED
        expect_journal APPROVED
        chunks=$(awk -v w=$((mtu - 3)) -v n=$((mtu - 5)) '
            function size(line) { sub(/.*\(/, "", line); sub(/ bytes\).*/, "", line); return line + 0 }
            /^ble> write .*\([0-9]+ bytes\)/ { s = size($0); if (s > w) long_w++; if (s == w) full_w++ }
            /ble< notification.*\([0-9]+ bytes\)/ { s = size($0); if (s > n) long_n++; if (s == n) full_n++ }
            END {
                if (long_w) printf "%d writes longer than %d bytes; ", long_w, w
                if (!full_w) printf "no %d-byte write; ", w
                if (long_n) printf "%d notifications longer than %d bytes; ", long_n, n
                if (!full_n) printf "no %d-byte notification; ", n
            }' "$e")
        [ -z "$chunks" ] || note "MTU $mtu: ${chunks%; }"
        run info
        expect_rc 0
    else
        note "bluetoothd would not start with ExchangeMTU $mtu"
    fi
    finish
}

# ATT's default and smallest MTU, what a terminal that never raises it gives (start_bluetoothd's shim lets bluetoothd
# take it); and 48, bluetoothd's own smallest.
if wanted mtu-23; then mtu_case 23; fi
if wanted mtu-48; then mtu_case 48; fi

stop "$peripheral_pid" "$sim_pid" "$bluetoothd_pid"
log "cases done"
