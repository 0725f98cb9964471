#!/bin/sh
# PID 1 of the BLE test bed's VM (baked into the image by build-image.sh): mounts what a system needs and the 9p
# share, then runs the share's guest/session.sh (so that changing the cases does not rebuild the image), and powers
# the VM off whatever happens.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/pts /run /tmp
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -o remount,rw /
hostname ucube-ble
ip link set lo up 2>/dev/null || true
modprobe 9pnet_virtio
modprobe 9p
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 share /share; then
    sh /share/guest/session.sh >/share/out/session.log 2>&1
    echo "ble-init: session ended with status $?"
else
    echo "ble-init: cannot mount the 9p share"
fi
sync
echo o >/proc/sysrq-trigger
sleep 10
