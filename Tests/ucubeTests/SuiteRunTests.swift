import Foundation
import Testing
import UCubeRuntime

/// The suite runner as a library (issue 42): what a run's outcome means for the command's exit, decided by
/// `SuiteRun.Outcome` from the case results as values. The runs themselves, on the simulator, a steered
/// `ucube simulate` and an attended terminal, are in TestSuiteEndToEndTests and OperatorWaitTests.
struct SuiteRunTests {
    static let suite = try! JSONDecoder().decode(
        PaymentSuite.self,
        from: Data(
            """
            {"name": "outcomes", "cases": [
              {"name": "a", "card": "visa-contact", "request": {"amount": "1.00"}, "expect": {"status": "APPROVED"}},
              {"name": "b", "card": "visa-contact", "request": {"amount": "2.00"}, "expect": {"status": "APPROVED"}},
              {"name": "c", "card": "visa-contact", "request": {"amount": "3.00"}, "expect": {"status": "APPROVED"}}
            ]}
            """.utf8))

    static func passed(_ index: Int) -> SuiteResult {
        SuiteResult(
            suiteCase: suite.cases[index], observation: SuiteObservation(failure: "approved"), mismatches: [],
            seconds: 1)
    }

    static func failed(_ index: Int) -> SuiteResult {
        SuiteResult(
            suiteCase: suite.cases[index], observation: SuiteObservation(failure: "declined"),
            mismatches: [SuiteMismatch(field: "status", expected: "APPROVED", got: "DECLINED")], seconds: 1)
    }

    @Test func everyCaseThatRanPassedIsNoFailureEvenWithSkippedOnes() {
        let outcome = SuiteRun.Outcome(
            results: [Self.passed(0), .notRun(Self.suite.cases[1], because: "cannot be set up unattended")],
            stopped: false)
        #expect(outcome.failure == nil)
    }

    @Test func aFailedCaseIsExit17NamingIt() throws {
        let outcome = SuiteRun.Outcome(results: [Self.passed(0), Self.failed(1), Self.passed(2)], stopped: false)
        let failure = try #require(outcome.failure)
        #expect(failure.exit.code == ExitCodes.testFailed.code)
        #expect(failure.message == "1 of 3 cases failed: b")
    }

    @Test func aStoppedRunIsCancelledNamingTheInterruptedCaseAndCountingTheOthers() throws {
        var interrupted = Self.passed(1)
        interrupted.interrupted = true
        let outcome = SuiteRun.Outcome(
            results: [
                Self.failed(0), interrupted, .notRun(Self.suite.cases[2], because: "not run: the run was stopped"),
            ],
            stopped: true)
        let failure = try #require(outcome.failure)
        // A stop outranks the failed case before it: the run did not end on its own.
        #expect(failure.exit.code == ExitCodes.cancelled.code)
        #expect(failure.message == "the run was stopped: b interrupted, 1 of 3 cases not run")
    }

    @Test func manyNamesAreCutToAReadableLine() {
        #expect(SuiteRun.names(["a", "b", "c", "d"]) == "a, b, c, d")
        #expect(SuiteRun.names(["a", "b", "c", "d", "e"]) == "a, b, c and 2 more")
    }

    @Test func theSuitePathIsAbsoluteForASimulatorElsewhere() {
        let run = SuiteRun(
            suite: Self.suite, cases: Self.suite.cases, path: "Suites/payments.json",
            context: FleetRunReportingTests.context(["sim"]), inFleet: false, unattended: false, waitForOperator: nil)
        #expect(run.path == FileManager.default.currentDirectoryPath + "/Suites/payments.json")
    }
}
