#!/usr/bin/env bash
# Builds the libFuzzer harness Fuzz/UCubeFuzz.swift with the UCubeProtocol sources and runs it.
#   Scripts/fuzz.sh [SECONDS] [extra libFuzzer flags]   (default 60 s; 3600 for an hour)
# Findings (crash-*, timeout-*, oom-*) land in fuzz-out/; the corpus grows in Fuzz/corpus-local/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true

mkdir -p .build/fuzz fuzz-out Fuzz/corpus-local
swiftc -O -g -sanitize=fuzzer,address -parse-as-library -module-name UCubeFuzz \
    $(find Sources/UCubeProtocol -name '*.swift' | sort) Fuzz/UCubeFuzz.swift \
    -o .build/fuzz/ucube-fuzz

.build/fuzz/ucube-fuzz Fuzz/corpus-local Fuzz/corpus \
    -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -max_len=4200 \
    -artifact_prefix=fuzz-out/ -print_final_stats=1 "$@"
