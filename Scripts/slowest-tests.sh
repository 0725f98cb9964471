#!/usr/bin/env bash
# Lists the slowest tests of a `swift test` log with their times, so that a test creeping towards its deadline is seen
# in CI's output before it fails (issue 36). A test's time is Swift Testing's own "passed after" / "failed after",
# from its start to its verdict, in a run where the whole suite shares the machine.
#   Scripts/slowest-tests.sh LOG [N]     (N: how many, default 20)
set -euo pipefail
log=${1:?usage: Scripts/slowest-tests.sh LOG [N]}
count=${2:-20}
[ -r "$log" ] || { echo "slowest-tests.sh: cannot read $log" >&2; exit 1; }

echo
echo "==== the $count slowest tests (from $log) ===="
# "✔ Test NAME passed after 12.345 seconds." (and "with N test cases" for a parameterised test); suites are left out.
# The last stage reads all of its input: a `head` there would leave `sort` writing into a closed pipe, and with
# pipefail its SIGPIPE (exit 141) turned a green run red once the log had more results than a pipe holds.
sed -nE 's/^[✔✘] Test (.*) (passed|failed) after ([0-9.]+) seconds.*/\3\t\2\t\1/p' "$log" |
    grep -v $'\trun with [0-9]* tests' | sort -t$'\t' -k1,1 -rn |
    awk -F'\t' -v count="$count" 'NR <= count { printf "%9.3f s  %-6s  %s\n", $1, $2, substr($3, 1, 150) }'
