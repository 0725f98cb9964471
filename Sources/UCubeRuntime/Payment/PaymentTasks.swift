import Foundation
import UCubePayment
import UCubeProtocol

/// The words `pay --authorize` and `--select` take (and a suite case's `authorize` and `select`), as tasks.
package enum PaymentTasks {
    /// The --authorize word when none is given: $UCUBE_AUTHORIZE, else approve (the simulator's default).
    package static var defaultAuthorization: String { Environment.value(HostChoices.environmentVariable) ?? "approve" }

    /// approve, decline, unable, prompt (`prompt`, the task that asks the operator; nil: nobody can answer), a host
    /// (exec:PROGRAM, https://HOST/PATH), or an 8A value in hex with optional issuer data.
    package static func authorization(
        _ text: String, field: String = "--authorize", prompt: (any AuthorizationTask)?,
        timeout: Duration = HostChoices.defaultTimeout, files: HostTLSFiles = HostChoices.files()
    ) throws -> any AuthorizationTask {
        let named: HostHook?
        do {
            named = try HostHook.parse(text, files: files)
        } catch {
            throw UsageError(field == "--authorize" ? error.description : "\(field): \(error.description)")
        }
        if let hook = named {
            return HostAuthorization(
                hook: hook, timeout: timeout, journal: PaymentJournal(path: Environment.journalPath),
                terminal: HostDocuments.Terminal(device: nil, serial: nil, firmware: nil))
        }
        switch text {
        case "approve": return FixedAuthorization(.approve)
        case "decline": return FixedAuthorization(.decline)
        case "unable": return FixedAuthorization(.unable)
        case "prompt":
            guard let prompt else {
                throw UsageError(
                    "\(field) prompt needs a terminal on stdin or `ucube shell`; use approve, decline, unable or an 8A value"
                )
            }
            return prompt
        default:
            do {
                return FixedAuthorization(.raw(try AuthorizationResponse(parsing: text)))
            } catch {
                throw UsageError(
                    "\(field) must be approve, decline, unable, prompt, exec:PROGRAM or https://HOST/PATH (a host), or an 8A value in hex with optional issuer data (3030:91…); '\(text)': \(error.reason)"
                )
            }
        }
    }

    /// auto (EMV priority), first, prompt (`prompt`, as for `authorization`), or an AID in hex.
    package static func selection(
        _ text: String, field: String = "--select", prompt: (any ApplicationSelectionTask)?
    ) throws -> any ApplicationSelectionTask {
        switch text {
        case "auto": return EMVPrioritySelection()
        case "first": return FirstApplicationSelection()
        case "prompt":
            guard let prompt else {
                throw UsageError(
                    "\(field) prompt needs a terminal on stdin or `ucube shell`; use auto, first or an AID")
            }
            return prompt
        default:
            let aid = try Parse.hex(text, argument: field)
            guard (5...16).contains(aid.count) else { throw UsageError("\(field): an AID is 5 to 16 bytes") }
            return FixedAIDSelection(aid: aid)
        }
    }
}
