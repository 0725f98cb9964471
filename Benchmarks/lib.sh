# Shared by the benchmark scripts (sourced from the repository's root).

# bench_ucube [UCUBE]: the absolute path of UCUBE when given; otherwise builds the release binary `make install`
# installs (`make`, its output on stderr) and prints its path.
bench_ucube() {
    if [ $# -ge 1 ]; then
        realpath "$1"
    else
        make --no-print-directory build >&2
        realpath .build/install/ucube
    fi
}
