#!/usr/bin/env bash
# Prints what failed in a `swift test` log, so that the cause of a red run is on the last lines a CI page shows:
# every issue recorded (test, file:line, expectation, and the first lines of its detail), the tests that were still
# running when the test process died (a crash or a signal leaves no verdict for them), and the runner's closing line.
#   Scripts/test-summary.sh LOG
set -euo pipefail
log=${1:?usage: Scripts/test-summary.sh LOG}
[ -r "$log" ] || { echo "test-summary.sh: cannot read $log" >&2; exit 1; }

echo
echo "==== what failed (from $log) ===="
awk '
    # An issue line, then up to four of its indented detail lines (↳ and the lines that continue them).
    /^✘ Test .* recorded an issue/ { print substr($0, 1, 400); detail = 4; next }
    detail > 0 && /^(↳|  )/ { print "    " substr($0, 1, 300); detail--; next }
    { detail = 0 }
' "$log"

# A test process that died (signal, crash, fatalError) prints no verdict for the tests it was running.
if ! grep -q "^[✔✘] Test run with" "$log"; then
    echo
    echo "The test process ended without a verdict; these tests had started and not finished:"
    awk '
        /^◇ Test .* started/ { name = $0; sub(/^◇ Test /, "", name); sub(/ started\.?$/, "", name); running[name] = 1 }
        /^[✔✘] Test .* (passed|failed)/ {
            for (n in running) {
                base = n; sub(/ with [0-9]+ test cases?$/, "", base)
                if (index($0, "Test " base " ") > 0 || index($0, "Test " n " ") > 0) delete running[n]
            }
        }
        END { for (n in running) print "    " n }
    ' "$log" | sort
    grep -m 3 "exited with unexpected signal\|Fatal error" "$log" | cut -c1-300 || true
fi
echo
grep -E "^[✔✘] Test run with|error: fatalError|exited with unexpected signal" "$log" | tail -n 1 || echo "(no closing line from the test runner)"
