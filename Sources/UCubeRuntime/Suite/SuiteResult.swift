import Foundation
import UCubeLog
import UCubePayment
import UCubeProtocol
import UCubeSimulator

/// One case's result.
package struct SuiteResult {
    package let suiteCase: SuiteCase
    package let observation: SuiteObservation
    package let mismatches: [SuiteMismatch]
    package let seconds: Double
    /// Why the case did not run at all (the run was stopped before it): TAP `# SKIP`, JUnit `<skipped>`.
    package var notRun: String? = nil
    /// The run was stopped while this case ran: it fails, whatever its payment gave.
    package var interrupted = false

    package init(
        suiteCase: SuiteCase,
        observation: SuiteObservation,
        mismatches: [SuiteMismatch],
        seconds: Double,
        notRun: String? = nil,
        interrupted: Bool = false
    ) {
        self.suiteCase = suiteCase
        self.observation = observation
        self.mismatches = mismatches
        self.seconds = seconds
        self.notRun = notRun
        self.interrupted = interrupted
    }

    package var passed: Bool { notRun == nil && !interrupted && mismatches.isEmpty }

    /// A case the stopped run never started.
    package static func notRun(_ suiteCase: SuiteCase, because reason: String) -> SuiteResult {
        SuiteResult(
            suiteCase: suiteCase, observation: SuiteObservation(failure: reason), mismatches: [], seconds: 0,
            notRun: reason)
    }

    /// Compares what a case expects with what its payment gave: the status always, the others when the case names them.
    package static func compare(_ expect: SuiteExpectation, _ got: SuiteObservation) -> [SuiteMismatch] {
        var out: [SuiteMismatch] = []
        func hex(_ bytes: [UInt8]?) -> String { bytes.map { Hex.encode($0) } ?? "none" }
        if got.status != expect.status {
            out.append(SuiteMismatch(field: "status", expected: expect.status.name, got: got.status?.name ?? "none"))
        }
        if let tvr = expect.tvr, tvr != got.tvr {
            out.append(SuiteMismatch(field: "tvr", expected: hex(tvr), got: hex(got.tvr)))
        }
        if let tsi = expect.tsi, tsi != got.tsi {
            out.append(SuiteMismatch(field: "tsi", expected: hex(tsi), got: hex(got.tsi)))
        }
        if let cvm = expect.cvmResult, cvm != got.cvmResult {
            out.append(SuiteMismatch(field: "cvmResult", expected: hex(cvm), got: hex(got.cvmResult)))
        }
        if let type = expect.cryptogram, type != got.cryptogram {
            out.append(
                SuiteMismatch(
                    field: "cryptogram", expected: type.name.uppercased(),
                    got: got.cryptogram?.name.uppercased() ?? "none"))
        }
        return out
    }
}
