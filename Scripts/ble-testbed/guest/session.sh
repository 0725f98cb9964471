#!/bin/sh
# Runs in the BLE test bed's VM (started by the image's init from the 9p share at /share): brings up the Bluetooth
# stack — the kernel's hci_vhci, `btvirt -L -l2` (two LE controllers linked to each other), dbus and bluetoothd —
# then runs guest/cases.sh, which drives ucube on hci0 against the uCube Touch peripheral on hci1. Everything it
# writes goes to /share/out; the host judges it (Scripts/ble-testbed/run.sh).
set -u
export PATH=/share/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LD_LIBRARY_PATH=/share/lib
out=/share/out
log() { echo "[$(cut -d' ' -f1 /proc/uptime)] session: $*"; }

log "kernel $(uname -r), $(nproc) CPU"
# btvirt opens /dev/vhci, and its controllers do LE Secure Connections' crypto through AF_ALG: without these it says
# "Failed to open Virtual HCI device".
for module in bluetooth hci_vhci algif_hash algif_skcipher cmac ecb ecdh_generic; do
    modprobe "$module" || log "modprobe $module failed"
done

# The loopback interface up (minbase has no iproute2): the peripheral reaches the simulator on 127.0.0.1.
python3 - <<'PY' || log "cannot bring lo up"
import fcntl, socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
flags = struct.unpack('16sH14s', fcntl.ioctl(s, 0x8913, struct.pack('16sH14s', b'lo', 0, bytes(14))))[1]  # SIOCGIFFLAGS
fcntl.ioctl(s, 0x8914, struct.pack('16sH14s', b'lo', flags | 1, bytes(14)))  # SIOCSIFFLAGS, IFF_UP
PY

mkdir -p /run/dbus /var/lib/bluetooth
dbus-uuidgen --ensure
dbus-daemon --system --fork || { log "dbus-daemon failed"; exit 1; }

btvirt -L -l2 >/tmp/btvirt.log 2>&1 &
i=0
while [ ! -e /sys/class/bluetooth/hci1 ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
[ -e /sys/class/bluetooth/hci1 ] || { log "btvirt made no hci1"; cat /tmp/btvirt.log; exit 1; }
log "btvirt: $(ls /sys/class/bluetooth | tr '\n' ' ')"

# bluetoothd is (re)started by cases.sh with the main.conf each case needs (start_bluetoothd MTU).
. /share/guest/cases.sh
