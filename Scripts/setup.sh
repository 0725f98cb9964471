#!/usr/bin/env bash
# Installs the Debian / Ubuntu packages ucube needs (Scripts/debian-packages.txt) that this machine lacks.
#   Scripts/setup.sh          what building ucube needs
#   Scripts/setup.sh --test   what building it and running the test suite need, the BLE test bed's included
#   Scripts/setup.sh --bench  what building it and running Benchmarks/startup.sh need
#   Scripts/setup.sh --ble    what building it and running the BLE test bed (Scripts/ble-testbed/run.sh) need
#   Scripts/setup.sh --vendor what building it and running the optional vendor-SDK harness need (a JDK, the SDK's jars)
# Each package is checked with dpkg-query; only missing ones are installed (apt-get, through sudo when not root),
# after saying what they are for. When everything is there it installs nothing and asks for no password.
set -euo pipefail
list="$(cd "$(dirname "$0")" && pwd)/debian-packages.txt"

kinds=" build "
what="building ucube"
for option in "$@"; do
    case "$option" in
        --test) kinds+="test ble " what+=" and running its tests (the BLE test bed's too)" ;;
        --bench) kinds+="bench " what+=" and running its start-up benchmark" ;;
        --ble) kinds+="test ble " what+=" and running its BLE test bed" ;;
        --vendor) kinds+="vendor " what+=" and running the vendor-SDK harness" ;;
        -h | --help)
            sed -n '2,9s/^# \{0,1\}//p' "$0"
            exit 0
            ;;
        *)
            echo "setup.sh: unknown option '$option' (Scripts/setup.sh [--test] [--bench] [--ble] [--vendor])" >&2
            exit 64
            ;;
    esac
done

if ! command -v swift >/dev/null 2>&1; then
    echo "setup.sh: swift is not on PATH; install Swift 6 (6.3 is tested) first, then run this again" >&2
    exit 1
fi

# The lines of the list this run needs: "ALTERNATIVES<TAB>WHY".
wanted=()
while read -r name kind why; do
    case "$name" in "" | "#"*) continue ;; esac
    case "$kind" in
        build | test | bench | ble | vendor) ;;
        *)
            echo "setup.sh: $list: '$name' is needed for '$kind', not build, test, bench, ble or vendor" >&2
            exit 1
            ;;
    esac
    [[ "$kinds" == *" $kind "* ]] || continue
    wanted+=("$name"$'\t'"$why")
done <"$list"

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    echo "setup.sh: no dpkg/apt-get here, so this is not Debian or Ubuntu: install the equivalents of these yourself:" >&2
    for line in "${wanted[@]}"; do printf '  %-20s %s\n' "${line%%$'\t'*}" "${line#*$'\t'}" >&2; done
    exit 0
fi

installed() {
    # `dpkg -s` also succeeds for a removed package whose configuration files remain: ask for the state itself.
    dpkg-query -W -f='${db:Status-Status}\n' "$1" 2>/dev/null | grep -qx installed
}

missing=()
for line in "${wanted[@]}"; do
    names=${line%%$'\t'*}
    found=no
    IFS='|' read -r -a alternatives <<<"$names"
    for name in "${alternatives[@]}"; do
        if installed "$name"; then found=yes && break; fi
    done
    [ "$found" = yes ] || missing+=("$line")
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "setup.sh: the ${#wanted[@]} Debian packages for $what are installed (Scripts/debian-packages.txt)"
    exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "setup.sh: these packages are missing and installing them needs root, but there is no sudo:" >&2
        for line in "${missing[@]}"; do printf '  %s\n' "${line%%$'\t'*}" >&2; done
        echo "run Scripts/setup.sh $* as root" >&2
        exit 1
    fi
    sudo=(sudo)
fi

echo "setup.sh: $what needs ${#missing[@]} Debian package(s) this machine lacks; installing them with apt-get${sudo:+ through sudo}:"
for line in "${missing[@]}"; do printf '  %-20s %s\n' "${line%%$'\t'*}" "${line#*$'\t'}"; done

apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -o Dpkg::Use-Pty=0)
"${apt[@]}" update -qq

# Of alternatives, the first one this system's package lists know (e.g. dbus-daemon on Debian 12, dbus on Ubuntu 22.04).
packages=()
for line in "${missing[@]}"; do
    names=${line%%$'\t'*}
    IFS='|' read -r -a alternatives <<<"$names"
    chosen=${alternatives[0]}
    for name in "${alternatives[@]}"; do
        candidate=$(apt-cache policy "$name" 2>/dev/null | sed -n 's/^ *Candidate: //p')
        if [ -n "$candidate" ] && [ "$candidate" != "(none)" ]; then chosen=$name && break; fi
    done
    packages+=("$chosen")
done
"${apt[@]}" install -y -qq --no-install-recommends "${packages[@]}"

for package in "${packages[@]}"; do
    if ! installed "$package"; then
        echo "setup.sh: apt-get did not install $package" >&2
        exit 1
    fi
done
echo "setup.sh: installed ${packages[*]}"
