#!/usr/bin/env bash
# Builds the BLE test bed's virtual machine image from Debian's archive, or finds it already built, and prints the
# directory that holds it (vmlinuz, initrd.gz, rootfs.ext4).
#   Scripts/ble-testbed/build-image.sh
# The image lives outside the checkout, in $UCUBE_BLE_CACHE (default ~/.cache/ucube-ble), under a name made of the
# hash of this script and of guest/init.sh: changing either builds a new one. Nothing here needs the network once the
# image exists. Needs (Scripts/debian-packages.txt, `ble`): debootstrap, debian-archive-keyring, busybox-static, cpio,
# e2fsprogs and dpkg-deb; root for debootstrap (through sudo when run by another user).
#
# What it holds (issue 24; /work/shared measurements): Debian 12 `debootstrap --variant=minbase` with dbus, bluez,
# bluez-test-tools (btvirt, btmgmt), python3-dbus and python3-gi; Debian's generic kernel (its cloud flavour has no
# Bluetooth), taken with the image's own `apt-get download` and `dpkg-deb -x`, with only the modules the test bed
# loads; a busybox initramfs that loads virtio, ext4 and mounts the root; `mke2fs -d` makes the disk without a loop
# mount.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${UCUBE_BLE_CACHE:-$HOME/.cache/ucube-ble}"
mirror="${UCUBE_BLE_MIRROR:-http://deb.debian.org/debian}"
suite=bookworm
key="$(cat "$here/build-image.sh" "$here/guest/init.sh" | sha256sum | cut -c1-16)"
image="$cache/image-$key"

if [ -f "$image/ready" ]; then
    echo "$image"
    exit 0
fi
# Only the image's directory goes to stdout (fd 3); every tool's chatter goes to stderr.
exec 3>&1 1>&2

say() { echo "build-image: $*" >&2; }
for tool in debootstrap busybox cpio mke2fs dpkg-deb python3 gzip; do
    command -v "$tool" >/dev/null 2>&1 || { say "$tool is missing: bash Scripts/setup.sh --test installs it"; exit 69; }
done
# debootstrap needs root: a user's build goes through sudo (as Scripts/setup.sh's apt-get does), into the user's cache,
# which is then given back to the user.
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { say "debootstrap needs root, and there is no sudo: run this as root"; exit 77; }
    say "debootstrap needs root: building through sudo"
    sudo env UCUBE_BLE_CACHE="$cache" UCUBE_BLE_MIRROR="$mirror" "$here/build-image.sh" >&3 || exit $?
    sudo chown -R "$(id -u):$(id -g)" "$cache"
    exit 0
fi
busybox_bin="$(command -v busybox)"

mkdir -p "$cache"
work="$(mktemp -d "$cache/build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
started=$SECONDS

# 1. The root file system.
say "debootstrap $suite (minbase) from $mirror"
mkdir -p "$cache/debs"
# The downloaded packages stay in $cache/debs: a rebuild after a script change downloads nothing again.
debootstrap --variant=minbase --cache-dir="$cache/debs" \
    --include=dbus,bluez,bluez-test-tools,python3-dbus,python3-gi,kmod,procps \
    "$suite" "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
rm -rf "$work/root/var/cache/apt/archives/"*.deb "$work/root/var/lib/apt/lists/"* "$work/root/usr/share/doc" \
    "$work/root/usr/share/man" "$work/root/usr/share/locale"

# 2. Debian's generic kernel, the version linux-image-amd64 depends on, as the new root file system's own apt finds it
# (not the host's: the host may be Ubuntu, whose archive has no linux-image-amd64).
say "the generic kernel"
cp -L /etc/resolv.conf "$work/root/etc/resolv.conf" 2>/dev/null || true
chroot "$work/root" apt-get update -qq >"$work/apt.log" 2>&1 ||
    { tail -5 "$work/apt.log" >&2; say "apt-get update in the image failed"; exit 1; }
package="$(chroot "$work/root" apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')"
[ -n "$package" ] || { say "the image's apt knows no linux-image-amd64"; exit 1; }
if ! ls "$cache/debs/$package"_*.deb >/dev/null 2>&1; then
    chroot "$work/root" sh -c "cd /tmp && apt-get download $package" >>"$work/apt.log" 2>&1 ||
        { tail -5 "$work/apt.log" >&2; say "apt-get download $package failed"; exit 1; }
    mv "$work/root/tmp/$package"_*.deb "$cache/debs/"
fi
rm -rf "$work/root/var/lib/apt/lists/"* "$work/root/etc/resolv.conf"
dpkg-deb -x "$(ls "$cache/debs/$package"_*.deb | tail -1)" "$work/kernel"
version="$(ls "$work/kernel/lib/modules")"
# The package has no modules.dep (its postinst makes it): the root file system's depmod (kmod) makes it, so the
# host needs no kmod.
mv "$work/kernel" "$work/root/tmp/kernel"
chroot "$work/root" depmod -b /tmp/kernel "$version"
mv "$work/root/tmp/kernel" "$work/kernel"
modules="$work/kernel/lib/modules/$version"

# Only what the VM loads, with its dependencies: Bluetooth, btvirt's virtual HCI and AF_ALG crypto, 9p, virtio, ext4.
wanted=(bluetooth hci_vhci algif_hash algif_skcipher cmac ecb ecdh_generic 9p 9pnet_virtio virtio_pci virtio_blk
    virtio_net ext4 crc32c_generic)
python3 - "$modules" "${wanted[@]}" >"$work/modules.list" <<'PY'
import sys
base, wanted = sys.argv[1], sys.argv[2:]
deps, byname = {}, {}
for line in open(base + "/modules.dep"):
    path, _, rest = line.partition(":")
    deps[path] = rest.split()
    name = path.rsplit("/", 1)[-1].split(".ko")[0].replace("-", "_")
    byname[name] = path
order, seen = [], set()
def visit(path):
    if path in seen: return
    seen.add(path)
    for d in deps.get(path, []): visit(d)
    order.append(path)
for name in wanted:
    if name in byname: visit(byname[name])
    else: print("# not a module (built in?): " + name)
print("\n".join(order))
PY
grep '^#' "$work/modules.list" >&2 || true
target="$work/root/lib/modules/$version"
mkdir -p "$target"
cp "$modules"/modules.order "$modules"/modules.builtin* "$target/"
grep -v '^#' "$work/modules.list" | while read -r path; do
    mkdir -p "$target/$(dirname "$path")"
    cp "$modules/$path" "$target/$path"
done
# The root file system's own depmod (kmod), so the host needs none.
chroot "$work/root" depmod "$version"

# 3. The initramfs: busybox, the modules of virtio and ext4 (in dependency order), and an init that mounts /dev/vda.
say "the initramfs"
initrd="$work/initrd"
mkdir -p "$initrd"/{bin,dev,proc,sys,newroot,modules}
cp "$busybox_bin" "$initrd/bin/busybox"
for applet in sh mount umount insmod switch_root mkdir sleep cat echo ls; do ln -s busybox "$initrd/bin/$applet"; done
python3 - "$modules" >"$work/initrd.list" <<'PY'
import sys
base = sys.argv[1]
deps, byname = {}, {}
for line in open(base + "/modules.dep"):
    path, _, rest = line.partition(":")
    deps[path] = rest.split()
    byname[path.rsplit("/", 1)[-1].split(".ko")[0].replace("-", "_")] = path
order, seen = [], set()
def visit(path):
    if path in seen: return
    seen.add(path)
    for d in deps.get(path, []): visit(d)
    order.append(path)
for name in ["virtio_pci", "virtio_blk", "ext4", "crc32c_generic"]:
    if name in byname: visit(byname[name])
print("\n".join(order))
PY
n=0
while read -r path; do
    [ -n "$path" ] || continue
    n=$((n + 1))
    file="$(printf '%02d' "$n")-$(basename "$path")"
    case "$path" in
        *.xz) xz -dc "$modules/$path" >"$initrd/modules/${file%.xz}" ;;
        *.zst) zstd -qdc "$modules/$path" >"$initrd/modules/${file%.zst}" ;;
        *) cp "$modules/$path" "$initrd/modules/$file" ;;
    esac
done <"$work/initrd.list"
cat >"$initrd/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in /modules/*.ko; do insmod "$m" 2>/dev/null; done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
mount -t ext4 /dev/vda /newroot || { echo "initramfs: cannot mount /dev/vda"; ls /dev; sleep 2; echo o > /proc/sysrq-trigger; }
umount /proc /sys
mount --move /dev /newroot/dev 2>/dev/null || umount /dev
exec switch_root /newroot /sbin/ble-init
INIT
chmod +x "$initrd/init"
(cd "$initrd" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$work/initrd.gz"

# 4. The guest's own init, then the disk.
install -m 0755 "$here/guest/init.sh" "$work/root/sbin/ble-init"
mkdir -p "$work/root/share" "$work/root/etc/bluetooth"
echo ucube-ble >"$work/root/etc/hostname"
say "the disk (mke2fs -d)"
size_mb=$(( $(du -sm "$work/root" | cut -f1) + 160 ))
mke2fs -q -t ext4 -L ucube-ble -d "$work/root" "$work/rootfs.ext4" "${size_mb}M"

mkdir -p "$image"
cp "$work/kernel/boot/vmlinuz-$version" "$image/vmlinuz"
mv "$work/initrd.gz" "$work/rootfs.ext4" "$image/"
echo "$version" >"$image/kernel-version"
touch "$image/ready"
say "built $image in $((SECONDS - started)) s (kernel $version)"
# Older images of other script versions are left for the user to delete (they are named by their key).
echo "$image" >&3
