// Bounds how many tests the test process runs at once, before Swift Testing reads its configuration (issue 36).
//
// Swift Testing starts every test at once, and all of them share Swift's cooperative pool: one thread per core, two
// on the machines the project builds on. With 1,000 tests started together, the pool's queue held many seconds of
// work (a debug build's parsers, simulators and crypto), and any test's time-critical step (an in-process simulator's
// answer, an RPC deadline) waited behind it: a 50 ms heartbeat task in the test process was late by 7.8 s and 16.3 s
// on a quiet machine, and the whole process stalled for 30 s beside other work. Bounding the width to a few tests per
// core keeps that queue short: the same heartbeat was never late by a second under stress-ng and two builds.
//
// The bound is set here, in a constructor that runs before `main`, so that `swift test` as the README writes it gets
// it with nothing to remember; a width already in the environment is kept (set 0 or a large number to lift it).
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "test_parallelism.h"

/// Tests at once per core: enough to overlap the tests that wait on child processes, few enough for a short queue.
static const long testsPerCore = 6;
static const char *variable = "SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH";

__attribute__((constructor)) static void ucube_bound_test_parallelism(void) {
    if (getenv(variable) != NULL) return;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    char width[32];
    snprintf(width, sizeof width, "%ld", cores * testsPerCore);
    setenv(variable, width, 0);
}

int ucube_test_parallelization_width(void) {
    const char *value = getenv(variable);
    return value == NULL ? 0 : atoi(value);
}
