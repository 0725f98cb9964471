import CTestParallelism
import Foundation
import Testing

/// The test process runs a bounded number of tests at once (Tests/CTestParallelism, issue 36): without the bound,
/// every test started together and the cooperative pool's queue held a test's time-critical steps for tens of seconds.
@Suite struct TestParallelismTests {
    @Test func theTestProcessRunsABoundedNumberOfTestsAtOnce() {
        let width = Int(ucube_test_parallelization_width())
        #expect(width > 0, "SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH is not set: every test starts at once")
        // Set by the constructor (6 a core), or by whoever ran the tests; either way a bound, not "all".
        #expect(width <= 1000, "a width of \(width) bounds nothing")
    }
}
