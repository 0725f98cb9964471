import ArgumentParser
import Foundation
import UCubeBluetooth
import UCubeLink
import UCubePayment
import UCubeProtocol
import UCubeRuntime
import UCubeTMS

extension UCube {
    /// `ucube diagnose`: checks everything a payment depends on, one finding per check.
    struct Diagnose: UCubeCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "diagnose",
                abstract:
                    "Check everything a payment depends on: the link, the terminal, the TMS, the journal, the disk.",
                discussion: discussion + HelpExamples.section("diagnose"))
        }

        static var discussion: String {
            """
            Each check gives one finding: ok, warning (worth fixing; a payment can still be taken), blocking (no \
            payment until it is fixed) or skipped (an earlier check failed, or nothing to check); each finding that \
            is not ok has a hint. Exit status: 0 when nothing blocks a payment (warnings included), \
            \(ExitCodes.diagnoseBlocking.code) (\(ExitCodes.diagnoseBlocking.name)) when a finding does, 64 for a bad \
            command line. Every wait is bounded: the terminal by --rpc-timeout, the TMS by --tms-timeout (default \
            \(DiagnoseChoices.tmsTimeout.components.seconds) s, one attempt), a BLE connection by \
            \(DiagnoseChoices.bluetoothTimeout.components.seconds) s.

            link: the device and its transport; another ucube process holding it (busy, blocking); a link session \
            left open by a process that died (stale-session, warning); for ble:// the D-Bus system bus \
            (dbus-unavailable), BlueZ (bluez-not-running), the adapter (bluetooth-no-adapter, bluetooth-adapter-off), \
            this user's permission (bluetooth-permission-denied) and a connection BlueZ holds that no ucube process \
            does (bluetooth-connection-pending; blocking when the link then does not open); whether the link opens \
            (the link error's code, e.g. connection-refused: blocking).

            terminal: GetInfo answers (else blocking; not-checked when the link is not open), the state (READY, else \
            terminal-not-ready: blocking; terminal-state-unknown), the battery (battery-low at \
            \(DiagnoseChoices.lowBatteryPercent) % or less, not charging; battery-unknown), the versions \
            (versions-unknown), the clock against the host's in UTC (clock-drift beyond \
            \(DiagnoseChoices.clockDriftSeconds) s, `ucube rpc rtc-set` sets it; clock-unreadable).

            tms: configured (else tms-not-configured, skipped), reachable (the TMS client's code, e.g. tms-network), \
            registered (tms-not-registered, tms-identity-unreadable), the client certificate's expiry (tms-certificate-expired, \
            tms-certificate-expiring within \(DiagnoseChoices.certificateWarningDays) days). TMS findings are \
            warnings: a payment does not use the TMS.

            journal: payments whose outcome was never recorded (unresolved-payments, warning, each listed; \
            journal-unreadable).

            disk: the state directory is writable (state-directory-unusable: blocking, a payment journals there \
            first), free space (disk-space-low), the runtime directory (runtime-directory-unusable, warning).

            With --json, one object: {"blocking":false,"device":"sim","findings":[{"area":"link","check":"open",\
            "code":"ok","severity":"ok","message":"...","hint":null,"details":{}}, ...]}. blocking is true when a \
            finding is; findings are grouped by area in the order link, terminal, tms, journal, disk; area, check, \
            code, severity, message, hint and details are always there (hint null for ok, details an object, maybe \
            empty). code is "ok" for a passing check, else a stable name from the lists above or an error code of \
            `ucube --help`. Never any card data.

            With several terminals (--device repeated, --devices FILE), a fleet run: each terminal's report is its \
            `result` event, and a terminal with a blocking finding fails (exit 16 in its `end`); the run exits 18 \
            when one does. See docs/fleet.md.
            """
        }

        @OptionGroup var globals: GlobalOptions
        @OptionGroup var tms: TMSOptions
        @OptionGroup var fleet: FleetQueryOptions

        func run(in context: CommandContext) async throws {
            // Several terminals (docs/fleet.md): each one's report is its `result` event; one with a blocking
            // finding fails (exit 16 in its `end`), naming the blocking codes. Read-only: no run file.
            if let run = try FleetRun(command: "diagnose", context: context, options: fleet.values, resumes: false) {
                try await run.run { [tms] device in
                    let report = await Diagnosis.run(
                        context: context.single(device, json: true), tms: Self.tmsSettings(tms))
                    try JSONOutput.print(report, pretty: false)
                    let blocking = report.grouped.filter { $0.severity == .blocking }
                    if !blocking.isEmpty {
                        throw CLIFailure(
                            ExitCodes.diagnoseBlocking,
                            "blocking: \(blocking.map { "\($0.code) (\($0.message))" }.joined(separator: "; "))")
                    }
                }
                return
            }
            let report = await Diagnosis.run(context: context, tms: Self.tmsSettings(tms))
            try report.print(json: context.json)
            if report.blocking { throw ExitCode(ExitCodes.diagnoseBlocking.code) }
        }

        /// The TMS the options name, for diagnosis: how to resolve its settings, and whether --tms-timeout was given
        /// (diagnose's own shorter wait applies when it was not).
        static func tmsSettings(_ options: TMSOptions) -> Diagnosis.TMS {
            Diagnosis.TMS(settings: { try options.settings() }, timeoutGiven: options.timeout != nil)
        }
    }
}
