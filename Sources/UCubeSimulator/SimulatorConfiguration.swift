import Foundation
import UCubeSupport

/// How one simulated terminal behaves: its seed, where it keeps its state, its link and its cardholder script.
package struct SimulatorConfiguration: Sendable {
    /// Seeds every "random" value (crypto headers, ATR, cryptograms, unpredictable numbers): two simulators with the
    /// same seed, state and input produce byte-identical output.
    package var seed: UInt64
    /// Directory holding `device.json`; `nil` keeps the device state in memory only.
    /// The CLI passes `$UCUBE_SIM_HOME` or `$XDG_STATE_HOME/ucube/simulator` (see `defaultStateDirectory`).
    package var stateDirectory: String?
    /// Link timing applied to every frame received and sent; `nil` = no delay.
    package var linkModel: LinkModel?
    /// The cardholder: card, keys, list-box choices, PIN.
    package var script: SimulatorScript
    /// Also accept wrapped (crypto header + payload + zero MAC) NONE-mode commands in SECURED state, as the old SDK
    /// sends them (spec §2.3: "a simulator may offer a 'legacy' switch").
    package var legacySecuredCommands: Bool
    /// Factor applied to every terminal-side duration: display and card-wait timeouts, the cardholder's delays.
    /// 1 = real time; tests use e.g. 0.01 so a 30 s timeout takes 0.3 s. The link model is not scaled.
    package var timeScale: Double
    /// The clock timeouts and link delays sleep on (`ContinuousClock` in production; tests may inject their own).
    package var clock: any Clock<Duration>
    /// No answer is written sooner than this after the last command frame arrived (not scaled by `timeScale`).
    /// Zero by default; an app built on the current SDK needs about 50 ms, or it loses answers that come before its
    /// writer thread has queued the command (spec §2.8; `ucube simulate --vendor-app`).
    package var minimumAnswerDelay: Duration = .zero
    /// The serial number of a new terminal (no saved state); `nil`: `SimulatorChoices.DefaultDevice.serialNumber`.
    /// A simulated fleet gives each of its terminals its own.
    package var serialNumber: UInt64? = nil

    /// The largest `timeScale`: the longest wait a terminal makes (a 65,535-second timeout) stays a `Duration` a
    /// sleep can take. A scale beyond it is refused where it is read (`UCUBE_SIM_TIME_SCALE`), never multiplied.
    package static let maximumTimeScale: Double = 1000

    package init(
        seed: UInt64 = SimulatorChoices.defaultSeed,
        stateDirectory: String? = nil,
        linkModel: LinkModel? = nil,
        script: SimulatorScript = .default,
        legacySecuredCommands: Bool = false,
        timeScale: Double = 1,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        precondition(
            timeScale >= 0 && timeScale <= Self.maximumTimeScale, "timeScale is a factor from 0 to maximumTimeScale")
        self.seed = seed
        self.stateDirectory = stateDirectory
        self.linkModel = linkModel
        self.script = script
        self.legacySecuredCommands = legacySecuredCommands
        self.timeScale = timeScale
        self.clock = clock
    }

    /// `$UCUBE_SIM_HOME`, else `$XDG_STATE_HOME/ucube/simulator`, else `$HOME/.local/state/ucube/simulator`
    /// (XDG Base Directory default); `nil` when none can be formed.
    package static func defaultStateDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        let xdg = XDGDirectories(environment: environment)
        return xdg.value("UCUBE_SIM_HOME") ?? xdg.stateHome.map { $0 + "/ucube/simulator" }
    }

    /// `duration` × `timeScale`.
    func scaled(_ duration: Duration) -> Duration { duration * timeScale }
}
