import Foundation
import UCubeBluetooth
import UCubeLink
import UCubePayment
import UCubeProtocol
import UCubeTMS

/// `ucube diagnose`: the TMS checks.
extension Diagnosis {

    static func checkTMS(_ tms: TMS, facts info: DeviceInfo?, into report: inout DiagnoseReport) async {
        var settings: TMSSettings
        do {
            settings = try tms.settings()
        } catch {
            let failure = CLIFailure(reporting: error)
            if failure.code == CLIErrorCode.name(of: TMSError.Code.notConfigured) {
                report.add(
                    .tms, "configured", .skipped, DiagnoseCode.tmsNotConfigured.name,
                    "no TMS configured: nothing to check (a payment does not use it)",
                    hint:
                        "to manage the terminal, give --tms, set $UCUBE_TMS_URL or tms_url in $XDG_CONFIG_HOME/ucube/config.json"
                )
            } else {
                report.add(.tms, "configured", .warning, failure)
            }
            return
        }
        report.ok(.tms, "configured", settings.baseURL, details: ["url": .string(settings.baseURL)])
        if !tms.timeoutGiven {
            settings.connectTimeout = min(settings.connectTimeout, DiagnoseChoices.tmsTimeout)
            settings.readTimeout = min(settings.readTimeout, DiagnoseChoices.tmsTimeout)
        }
        settings.attemptDeadline = min(settings.attemptDeadline, settings.connectTimeout + settings.readTimeout)
        settings.retry.attempts = 1

        var terminal: TerminalIdentity? = nil
        var identity: TMSIdentity? = nil
        if let info {
            terminal = try? TerminalIdentity(info)
        }
        if let terminal {
            let store = TMSContext.identities
            let serial = terminal.serial
            do {
                identity = try store.load(serial: serial)
            } catch {
                report.add(
                    .tms, "registered", .warning, DiagnoseCode.tmsIdentityUnreadable.name,
                    "the client identity of \(serial) cannot be used: \(error.reason)",
                    hint: "register again: `ucube mdm-register` replaces it")
            }
            if let identity {
                let path = (try? store.path(serial: serial)) ?? ""
                report.ok(
                    .tms, "registered", "terminal \(serial) is registered: \(path)",
                    details: ["identity": .string(path)])
                checkCertificate(identity, into: &report)
            } else if report.findings.last?.check != "registered" {
                report.add(
                    .tms, "registered", .warning, DiagnoseCode.tmsNotRegistered.name,
                    "terminal \(serial) is not registered with the TMS (no client identity)",
                    hint: "`ucube mdm-register` registers it")
            }
        } else {
            report.add(
                .tms, "registered", .skipped, DiagnoseCode.notChecked.name,
                "not checked: the terminal's serial is unknown")
        }
        await checkReachable(settings, terminal: terminal, identity: identity, into: &report)
    }

    static func checkCertificate(_ identity: TMSIdentity, into report: inout DiagnoseReport) {
        guard let notAfter = identity.certificateNotValidAfter else {
            report.add(
                .tms, "certificate", .warning, DiagnoseCode.tmsIdentityUnreadable.name,
                "the client certificate cannot be read", hint: "register again: `ucube mdm-register` replaces it")
            return
        }
        let date = Date(timeIntervalSince1970: TimeInterval(notAfter))
        let text = ISO8601DateFormatter().string(from: date)
        let days = Int((date.timeIntervalSinceNow / 86400).rounded(.down))
        let details: [String: DiagnoseValue] = ["notAfter": .string(text), "daysLeft": .int(days)]
        if date.timeIntervalSinceNow <= 0 {
            report.add(
                .tms, "certificate", .warning, DiagnoseCode.tmsCertificateExpired.name,
                "the client certificate expired on \(text)", hint: "register again: `ucube mdm-register` replaces it",
                details: details)
        } else if days < DiagnoseChoices.certificateWarningDays {
            report.add(
                .tms, "certificate", .warning, DiagnoseCode.tmsCertificateExpiring.name,
                "the client certificate expires on \(text), in \(days) day\(days == 1 ? "" : "s")",
                hint: "register again before then: `ucube mdm-register` replaces it", details: details)
        } else {
            report.ok(
                .tms, "certificate", "the client certificate is valid until \(text) (\(days) days)", details: details)
        }
    }

    static func checkReachable(
        _ settings: TMSSettings, terminal: TerminalIdentity?, identity: TMSIdentity?, into report: inout DiagnoseReport
    ) async {
        // The config request (spec §10.4) reads nothing and changes nothing. Without an identity, any answer from
        // the server (a refusal included) shows it is reachable; with one, it must accept the certificate.
        guard let probe = terminal ?? (try? TerminalIdentity(serial: "0", partNumber: "0")) else { return }
        let client: TMSClient
        do {
            client = try TMSClient(settings: settings, identity: identity)
        } catch {
            report.add(.tms, "reachable", .warning, CLIFailure(error))
            return
        }
        do {
            _ = try await client.config(terminal: probe)
            report.ok(
                .tms, "reachable",
                identity != nil ? "the TMS answers and accepts this terminal's certificate" : "the TMS answers")
        } catch {
            let answered: Bool =
                switch error.code {
                case .httpStatus, .refused, .notRegistered, .tlsCertificateRejected, .tlsCertificateExpired,
                    .malformedReply:
                    true
                default: false
                }
            if answered && identity == nil {
                report.ok(.tms, "reachable", "the TMS answers (without a client certificate: \(error.reason))")
            } else {
                report.add(.tms, "reachable", .warning, CLIFailure(error))
            }
        }
        await client.shutdown()
    }
}
