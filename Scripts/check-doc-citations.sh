#!/usr/bin/env bash
# Checks that the repository's documentation stands alone:
#   1. nothing points at a document outside the repository (the shared spec or architecture files);
#   2. every "spec §N" cited in Sources, Tests, Benchmarks and Fuzz is a heading of docs/protocol.md.
# Prints what is wrong and exits 1; prints a summary and exits 0 when both checks pass.
#   Scripts/check-doc-citations.sh
set -euo pipefail
cd "$(dirname "$0")/.."

protocol=docs/protocol.md
status=0

# 1. References to documents outside the repository.
# The pattern is built from pieces so that this file does not match it.
shared=shared
outside="\.\./${shared}|${shared}/spec|${shared}/ARCH|ARCHITECTURE[.]md|spec/ucube-[p]rotocol"
if refs=$(grep -rnE "$outside" Sources Tests Scripts README.md docs Benchmarks Fuzz .ci 2>/dev/null); then
    echo "References to documents outside the repository (use docs/protocol.md or docs/architecture.md):"
    echo "$refs"
    status=1
fi

# 2. Every cited section exists as a heading ("## 2. …", "### 2.3 …").
if [ ! -f "$protocol" ]; then
    echo "$protocol is missing"
    exit 1
fi
cited=$(grep -rhoE 'spec §[0-9]+(\.[0-9]+)?' Sources Tests Benchmarks Fuzz | sed 's/^spec §//' | sort -u -V || true)
missing=()
for section in $cited; do
    pattern="^#{1,6} ${section//./\\.}\.?( |$)"
    grep -qE "$pattern" "$protocol" || missing+=("$section")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "Sections cited as \"spec §N\" but not a heading of $protocol:"
    for section in "${missing[@]}"; do
        echo "  §$section, cited at:"
        grep -rnE "spec §${section//./\\.}([^0-9.]|\.[^0-9]|$)" Sources Tests Benchmarks Fuzz | sed 's/^/    /' || true
    done
    status=1
fi

if [ $status -eq 0 ]; then
    count=$(grep -rhoE 'spec §[0-9]+(\.[0-9]+)?' Sources Tests Benchmarks Fuzz | wc -l || true)
    echo "ok: no reference to documents outside the repository;" \
        "$(echo "$cited" | wc -w) sections cited $count times, each a heading of $protocol"
fi
exit $status
