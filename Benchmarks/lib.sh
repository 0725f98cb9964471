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

# bench_home WORK: a home of the benchmark's own under WORK (state, config, runtime directory, simulator state), so
# that it neither reads nor leaves anything in the user's.
bench_home() {
    export HOME=$1/home XDG_STATE_HOME=$1/home/state XDG_CONFIG_HOME=$1/home/config
    export XDG_RUNTIME_DIR=$1/run UCUBE_SIM_HOME=$1/sim
    mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
    chmod 700 "$XDG_RUNTIME_DIR"
}

# bench_simulator WORK UCUBE [ARGS...]: starts `UCUBE simulate --listen 127.0.0.1:0 ARGS` in the background, its
# output in WORK/sim.out and WORK/sim.err; sets `sim` to its pid and `port` to the port it listens on, or exits 1
# with what it said.
bench_simulator() {
    local work=$1 ucube=$2
    shift 2
    "$ucube" simulate --listen 127.0.0.1:0 "$@" >"$work/sim.out" 2>"$work/sim.err" &
    sim=$!
    for _ in $(seq 1 600); do grep -q "listening on" "$work/sim.out" && break; sleep 0.1; done
    port=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$work/sim.out" | head -1)
    [ -n "$port" ] || { echo "$(basename "$0"): the simulator did not listen:"; cat "$work/sim.err"; exit 1; }
}
