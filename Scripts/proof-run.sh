#!/usr/bin/env bash
# One cold, loaded run of the README's test command, the way a new user meets it (issue 36): the packages
# Scripts/setup.sh installs removed first (apt-get remove: run it only on a machine you may change), a fresh clone of
# this repository at COMMIT, `stress-ng --cpu 4` beside it (load 6 or more on two cores), then what CI runs:
# `bash .ci/run`, which runs the README's second command verbatim, then the checks and the listings after it (one of
# those, not a test, once turned a green run red). Writes the clone to $PROOF_DIR/cold-N and the log to $PROOF_DIR/cold-N.log (default /work/proof),
# with the load every minute (.ci/run lists the 20 slowest tests). The BLE test bed gets an empty cache of its own
# ($PROOF_DIR/cold-N-cache), as on a new machine: it builds its VM image and fetches its packages again.
# With PROOF_FIRST=1 it first runs the README's first command (the first line of its first sh block: set up, build,
# pay on the simulator) in the clone, under the same load, as a new user's first step; then it removes the packages
# and the build directory again, so that the test command still starts cold.
#   Scripts/proof-run.sh N COMMIT
set -u
n=${1:?usage: Scripts/proof-run.sh N COMMIT}; commit=${2:?usage: Scripts/proof-run.sh N COMMIT}
command -v stress-ng >/dev/null || apt-get install -y stress-ng >/dev/null 2>&1 || { echo "proof-run.sh: needs stress-ng" >&2; exit 1; }
proof=${PROOF_DIR:-/work/proof}
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$proof"
dir=$proof/cold-$n
log=$proof/cold-$n.log
rm -rf "$dir" "$dir-cache"
export UCUBE_BLE_CACHE=$dir-cache
{
echo "== cold run $n of $commit, $(date -u +%FT%TZ)"
packages="libssl-dev libdbus-1-dev libreadline-dev zlib1g-dev python3-dbusmock tmux tshark qemu-system-x86 debootstrap
    busybox-static python3-jsonschema python3-cryptography hyperfine python3-yaml chromium chromium-driver python3-selenium"
apt-get remove -y $packages >/dev/null 2>&1
echo "removed packages; still installed: $(dpkg -l $packages 2>/dev/null | grep -c '^ii')"
git clone -q "$repo" "$dir" && git -C "$dir" checkout -q "$commit"
# CI has a copy of the steering folder beside its clone: SHARED_DIR names it, to be linked in the same place.
[ -n "${SHARED_DIR:-}" ] && ln -sfn "$SHARED_DIR" "$proof/shared"
cd "$dir"
stress-ng --cpu 4 --timeout 10800 >/dev/null 2>&1 &
stress=$!
( while sleep 60; do echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"; done ) &
loadlog=$!
if [ "${PROOF_FIRST:-0}" = 1 ]; then
    first_command=$(awk '/^```sh$/ { inside = 1; next } inside && /^```/ { exit } inside { print; exit }' README.md)
    echo "+ $first_command"
    first_start=$(date +%s)
    bash -c "$first_command" 2>&1
    echo "== the README's first command: exit $? after $(( $(date +%s) - first_start )) s"
    apt-get remove -y $packages >/dev/null 2>&1
    rm -rf .build
    echo "removed packages and .build again; still installed: $(dpkg -l $packages 2>/dev/null | grep -c '^ii')"
fi
echo "+ bash .ci/run"
start=$(date +%s)
bash .ci/run 2>&1
status=$?
kill $loadlog $stress 2>/dev/null
echo "== cold run $n: exit $status after $(( $(date +%s) - start )) s"
} > "$log" 2>&1
