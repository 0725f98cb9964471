// How many tests the test process runs at once (issue 36); see test_parallelism.c.
#ifndef UCUBE_TEST_PARALLELISM_H
#define UCUBE_TEST_PARALLELISM_H

/// The width set for this test process: SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH as Swift Testing reads it.
int ucube_test_parallelization_width(void);

#endif
