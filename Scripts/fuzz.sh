#!/usr/bin/env bash
# Builds the libFuzzer driver (Fuzz/Driver) with every module instrumented and runs one target (Fuzz/README.md).
#   Scripts/fuzz.sh TARGET [SECONDS] [extra libFuzzer flags]   (default 60 s)
#   Scripts/fuzz.sh --list
# Findings (crash-*, timeout-*, oom-*) land in fuzz-out/TARGET/; the corpus grows in fuzz-out/TARGET/corpus, seeded
# from Fuzz/corpus/TARGET (committed). Minimise a crasher with -minimize_crash=1, then commit it under
# Fuzz/regressions/TARGET/: `swift test` replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."

build() {
    # -sanitize=fuzzer instruments every Swift module for coverage; address adds ASan. SwiftPM links the
    # executable's main itself, so the driver calls LLVMFuzzerRunDriver (-DUCUBE_LIBFUZZER). lld: gold fails on
    # the instrumented objects.
    swift build --scratch-path .build-fuzz -c release --product UCubeFuzz \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -DUCUBE_LIBFUZZER -Xswiftc -use-ld=lld >&2
    echo .build-fuzz/release/UCubeFuzz
}

if [[ ${1:-} == --list ]]; then
    swift run --quiet UCubeFuzz --list
    exit 0
fi
target=${1:?usage: Scripts/fuzz.sh TARGET [SECONDS] [libFuzzer flags] (Scripts/fuzz.sh --list)}
seconds=${2:-60}
shift $(($# < 2 ? $# : 2))

driver=$(build)
# The toolchain's symbolizer reads Swift's debug info; Debian's can hang on it.
export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-$(dirname "$(command -v swift)")/llvm-symbolizer}
# Swift's own crash backtracer is off: libFuzzer prints the stack (ASan), and the backtracer can take minutes over
# a binary this size.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
# ASan keeps the stack of every allocation it has seen: with Swift's async code nearly every allocation has a new one,
# and its stack depot grew the driver target by 8 KB an input until -rss_limit_mb ended the run (a build without ASan
# stays flat over the same inputs). Two frames and a smaller quarantine keep the run at about 250 MB.
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=2:quarantine_size_mb=64}
# Leak detection is off: Swift's runtime caches and the concurrency runtime's task allocations look like leaks to
# LeakSanitizer, and scanning for them after every input cut the driver target from thousands of inputs a second to
# tens. Growth still ends a run, through -rss_limit_mb.
out=fuzz-out/$target
mkdir -p "$out/corpus" "Fuzz/corpus/$target"
UCUBE_FUZZ_TARGET=$target "$driver" "$out/corpus" "Fuzz/corpus/$target" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 -detect_leaks=0 \
    -artifact_prefix="$out/" -print_final_stats=1 "$@"
