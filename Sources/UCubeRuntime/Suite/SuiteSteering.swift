import Foundation

/// The steering of the simulator a suite runs on (`ucube sim`, docs/suites.md "Running a suite"): each case's card
/// image or catalogue card, with its PIN and list-box choices, presented by the next card wait.
package struct SuiteSteering: Sendable {
    package let device: String
    package let path: String

    /// The steering of `device`, when a `ucube simulate` of this user serves it; nil otherwise (a real terminal).
    package static func probe(device: String) async -> SuiteSteering? {
        let path = SteeringSocket.path(forDevice: device)
        guard FileManager.default.fileExists(atPath: path),
            case .answered(let line) = await ControlSocket.request("status", at: path),
            SteeringAnswer(line: line)?.ok == true
        else { return nil }
        return SuiteSteering(device: device, path: path)
    }

    /// Sets the simulator up for the case; nil when it took it, else why the case cannot run.
    package func present(suite: String, case name: String) async -> String? {
        let line = ["suite", suite, name].map(ShellWords.quote).joined(separator: " ")
        guard case .answered(let text) = await ControlSocket.request(line, at: path) else {
            return "cannot be set up unattended: the simulator at \(device) no longer takes steering"
        }
        guard let answer = SteeringAnswer(line: text), answer.ok else {
            return
                "cannot be set up unattended: the simulator at \(device) refused the case: \(SteeringAnswer(line: text)?.error ?? text)"
        }
        return nil
    }
}
