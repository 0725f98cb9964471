#!/usr/bin/env bash
# Turns a staging tree filled by `make install DESTDIR=ROOT PREFIX=/usr` into a Debian package (run by `make deb`).
#   Scripts/build-deb.sh ROOT OUTDIR
# Version: what the binary's --version prints. Architecture: dpkg's. Depends: the packages that ship the shared
# libraries the binary links, each with the minimum version its symbols need (dpkg-shlibdeps, which reads the
# binary's NEEDED entries, finds each library's package as `ldd` and `dpkg -S` would, and its shlibs/symbols file);
# and those of the libraries it loads when first needed (libdbus-1, readline, libcrypto: Sources/CLazyLibrary),
# which are not NEEDED: a probe that links the functions and variables ucube resolves in them goes to
# dpkg-shlibdeps beside the binary.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: Scripts/build-deb.sh ROOT OUTDIR" >&2; exit 64; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
binary=$root/usr/bin/ucube

for tool in dpkg-deb dpkg-shlibdeps; do
    command -v "$tool" >/dev/null || { echo "build-deb.sh: $tool is missing (Debian package dpkg-dev)" >&2; exit 1; }
done

version=$("$binary" --version | awk '{ print $1 }')
arch=$(dpkg --print-architecture)
maintainer=${DEB_MAINTAINER:-"$(git config user.name || echo ucube developers) <$(git config user.email || echo ucube@localhost)>"}

# Debian policy: man pages gzip-compressed (-n: no name or time stamp, reproducible); a copyright file.
gzip -9nf "$root/usr/share/man/man1/ucube.1"
install -d "$root/usr/share/doc/ucube"
install -m 0644 "$here/deb/copyright" "$root/usr/share/doc/ucube/copyright"
{
    printf 'ucube (%s) unstable; urgency=medium\n\n' "$version"
    printf '  * Built from commit %s.\n\n' "$("$binary" --version | sed -n 's/.*(commit \(.*\)).*/\1/p')"
    printf ' -- %s  %s\n' "$maintainer" "$(date -R -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")"
} | gzip -9n >"$root/usr/share/doc/ucube/changelog.gz" # a native package (no Debian revision)

# What the binary links, and which package ships each library: shown, and any library that no package ships (a
# Swift toolchain library, say) stops the build, since the package would not run without it.
echo "build-deb.sh: shared libraries /usr/bin/ucube links, and their packages:"
orphans=0
while read -r library path; do
    package=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$(realpath "$path")" 2>/dev/null || dpkg -S "/usr$path" 2>/dev/null || true)
    package=${package%%:*}
    printf '  %-28s %-44s %s\n' "$library" "$path" "${package:-NOT FROM A PACKAGE}"
    [ -n "$package" ] || orphans=$((orphans + 1))
done < <(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }')
if [ "$orphans" -gt 0 ]; then
    echo "build-deb.sh: $orphans of them come from no Debian package: the .deb would not run on another machine" >&2
    exit 1
fi

# dpkg-shlibdeps wants to run in a source tree: give it a minimal debian/control in a scratch directory.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/debian"
printf 'Source: ucube\n\nPackage: ucube\nArchitecture: any\n' >"$scratch/debian/control"

# The lazily loaded libraries: each lazy.c names its library (UCUBE_LAZY_LIBRARY("SONAME", …)) and every symbol it
# resolves there (LAZY, LAZY_VOID, VARIABLE). The probe refers to each symbol and links each library by SONAME.
sources=$(cd "$here/.." && pwd)/Sources
libraries=() symbols=()
for file in "$sources"/*/lazy.c; do
    soname=$(tr '\n' ' ' <"$file" | sed -n 's/.*UCUBE_LAZY_LIBRARY([[:space:]]*"\([^"]*\)".*/\1/p')
    [ -n "$soname" ] || { echo "build-deb.sh: $file names no library (UCUBE_LAZY_LIBRARY)" >&2; exit 1; }
    libraries+=("-l:$soname")
    # LAZY(result, name, …), LAZY_VOID(name, …), VARIABLE(name): a result type has no comma.
    while read -r symbol; do symbols+=("$symbol"); done < <(sed -n \
        -e 's/^LAZY([^,]*,[[:space:]]*\([A-Za-z_0-9]*\),.*/\1/p' \
        -e 's/^LAZY_VOID([[:space:]]*\([A-Za-z_0-9]*\),.*/\1/p' \
        -e 's/^VARIABLE(\([A-Za-z_0-9]*\))$/\1/p' "$file")
done
{
    for symbol in "${symbols[@]}"; do printf 'extern char %s[];\n' "$symbol"; done
    printf 'void *ucube_lazy_probe[] = {\n'
    for symbol in "${symbols[@]}"; do printf '    %s,\n' "$symbol"; done
    printf '};\n'
} >"$scratch/probe.c"
"${CC:-cc}" -shared -fPIC -o "$scratch/lazy-libraries.so" "$scratch/probe.c" -Wl,--no-as-needed "${libraries[@]}" || {
    echo "build-deb.sh: the probe of the lazily loaded libraries does not link (their -dev packages: Scripts/setup.sh)" >&2
    exit 1
}
echo "build-deb.sh: loaded when first needed, ${#symbols[@]} functions and variables: ${libraries[*]#-l:}"

depends=$(cd "$scratch" && dpkg-shlibdeps -O -e"$binary" -e"$scratch/lazy-libraries.so" 2>"$scratch/shlibdeps.log" \
    | sed -n 's/^shlibs:Depends=//p') || {
    cat "$scratch/shlibdeps.log" >&2
    exit 1
}
# Its warnings about this ad-hoc tree (no debian/ucube/DEBIAN) and unused libraries (libm) are expected.
grep -v -e 'it uses none of the library' -e "should already be installed in their package's directory" \
    -e 'lack of DEBIAN sub-directory' "$scratch/shlibdeps.log" >&2 || true
[ -n "$depends" ] || { echo "build-deb.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

install -d "$root/DEBIAN"
cat >"$root/DEBIAN/control" <<EOF
Package: ucube
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Section: utils
Priority: optional
Description: drive YouTransactor uCube / uCube Touch card-payment terminals
 ucube takes payments (EMV contact, contactless and magstripe flows), sends
 the terminal's RPC commands, updates its firmware and configuration from a
 TMS and collects its logs, over Bluetooth LE (BlueZ), RFCOMM, serial or TCP.
 A built-in simulator of the terminal needs no hardware:
 ucube --device sim pay 12.50 --currency EUR --authorize approve
EOF
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"

deb=$out/ucube_${version}_${arch}.deb
dpkg-deb --build --root-owner-group "$root" "$deb" >/dev/null
echo "build-deb.sh: $deb ($(du -h "$deb" | cut -f1))"
echo "Depends: $depends"
