import ArgumentParser
import Foundation
import UCubePayment
import UCubeProtocol
import UCubeRuntime

/// The words `pay --authorize` and `--select` take (and a suite case's `authorize` and `select`), as tasks.
enum PaymentTasks {
    /// The --authorize word when none is given: $UCUBE_AUTHORIZE, else approve (the simulator's default).
    static var defaultAuthorization: String { Environment.value(HostChoices.environmentVariable) ?? "approve" }

    /// approve, decline, unable, prompt (a terminal only: `prompts`, where its answer is read; nil: nobody can
    /// answer), or an 8A value in hex with optional issuer data.
    static func authorization(
        _ text: String, field: String = "--authorize", prompts: PromptSource?,
        timeout: Duration = HostChoices.defaultTimeout, files: HostTLSFiles = HostChoices.files()
    ) throws -> any AuthorizationTask {
        let named: HostHook?
        do {
            named = try HostHook.parse(text, files: files)
        } catch {
            throw ValidationError(field == "--authorize" ? error.description : "\(field): \(error.description)")
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
            guard let prompts else {
                throw ValidationError(
                    "\(field) prompt needs a terminal on stdin or `ucube shell`; use approve, decline, unable or an 8A value"
                )
            }
            return PromptAuthorization(source: prompts)
        default:
            do {
                return FixedAuthorization(.raw(try AuthorizationResponse(parsing: text)))
            } catch {
                throw ValidationError(
                    "\(field) must be approve, decline, unable, prompt, exec:PROGRAM or https://HOST/PATH (a host), or an 8A value in hex with optional issuer data (3030:91…); '\(text)': \(error.reason)"
                )
            }
        }
    }

    /// auto (EMV priority), first, prompt (a terminal only: `prompts`, as for `authorization`), or an AID in hex.
    static func selection(
        _ text: String, field: String = "--select", prompts: PromptSource?
    ) throws -> any ApplicationSelectionTask {
        switch text {
        case "auto": return EMVPrioritySelection()
        case "first": return FirstApplicationSelection()
        case "prompt":
            guard let prompts else {
                throw ValidationError(
                    "\(field) prompt needs a terminal on stdin or `ucube shell`; use auto, first or an AID")
            }
            return PromptSelection(source: prompts)
        default:
            let aid = try Parse.hex(text, argument: field)
            guard (5...16).contains(aid.count) else { throw ValidationError("\(field): an AID is 5 to 16 bytes") }
            return FixedAIDSelection(aid: aid)
        }
    }
}

/// `--authorize prompt`: shows what the issuer would get and reads approve / decline / unable / an 8A value.
struct PromptAuthorization: AuthorizationTask {
    let source: PromptSource

    func authorize(_ request: AuthorizationRequest, context: PaymentContext) async throws -> AuthorizationResponse {
        StandardError.write(
            "authorization: \(request.entryMode.rawValue), \(context.request.currency.format(minorUnits: request.amount)), cryptogram \(request.cryptogram?.name ?? "none")\(request.onlinePIN ? ", online PIN" : "")"
        )
        // Each value with its tag, its name and what it means ("9F27 cryptogramInformationData: 80 (ARQC)"), the
        // explained ones (TVR, CVM results, IAD …) bit by bit below them.
        let tags = context.authorizationPlainTags.map { TLV($0.tag, $0.value) }
        for line in TagValueFormatter.describe(tags, context: .payment, indent: 1, explain: true) {
            StandardError.write(line)
        }
        while true {
            guard
                let line = await Terminal.operatorAnswer(
                    prompt: "approve / decline / unable / 8A hex[:issuer data]? ", from: source)
            else {
                throw TaskCancelled()
            }
            switch line.trimmingCharacters(in: .whitespaces) {
            case "approve", "a": return .approved
            case "decline", "d": return .declined
            case "unable", "u": return .unableToGoOnline
            case "cancel": throw TaskCancelled()
            case let text:
                if let response = try? AuthorizationResponse(parsing: text) { return response }
                StandardError.write("not understood: \(text)")
            }
        }
    }
}

/// `--select prompt`: lists the candidates and reads a number.
struct PromptSelection: ApplicationSelectionTask {
    let source: PromptSource

    func select(_ candidates: [CandidateApplication], context: PaymentContext) async throws -> CandidateApplication? {
        for (i, c) in candidates.enumerated() {
            StandardError.write(
                "  \(i + 1). \(Hex.encode(c.aid)) \(c.label) (priority \(c.priority))\(c.blocked ? " blocked" : "")")
        }
        while true {
            guard let line = await Terminal.operatorAnswer(prompt: "application 1…\(candidates.count)? ", from: source)
            else {
                return nil
            }
            if let n = Int(line.trimmingCharacters(in: .whitespaces)), candidates.indices.contains(n - 1) {
                return candidates[n - 1]
            }
            if line.trimmingCharacters(in: .whitespaces) == "cancel" { return nil }
        }
    }
}

/// The options of a host's https form, shared by `pay` and `test`.
struct HostOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "With --authorize https://…: a PEM file of the only CAs the host's certificate may chain to (default: $UCUBE_AUTHORIZE_CA, else the system's CAs).",
            valueName: "file"))
    var authorizeCA: String?

    @Option(
        help: ArgumentHelp(
            "With --authorize https://…: a PEM client certificate to present (default: $UCUBE_AUTHORIZE_CERT).",
            valueName: "file"))
    var authorizeCert: String?

    @Option(
        help: ArgumentHelp(
            "The PEM private key of --authorize-cert, when its file lacks it (default: $UCUBE_AUTHORIZE_KEY).",
            valueName: "file"))
    var authorizeKey: String?

    @Option(
        help: ArgumentHelp(
            "With --authorize https://…: a file whose first line is the bearer token (default: $UCUBE_AUTHORIZE_TOKEN_FILE, else the token in $UCUBE_AUTHORIZE_TOKEN). Never the token itself: the command line is visible to every user.",
            valueName: "file"))
    var authorizeTokenFile: String?

    @Option(
        help: ArgumentHelp(
            "How long a host (--authorize exec:… or https://…) has to answer before the payment goes on as unable to go online.",
            valueName: "seconds"))
    var authorizeTimeout: Double = Double(HostChoices.defaultTimeout.components.seconds)

    var files: HostTLSFiles {
        HostChoices.files(ca: authorizeCA, certificate: authorizeCert, key: authorizeKey, tokenFile: authorizeTokenFile)
    }

    /// --authorize-timeout, checked.
    func timeout() throws -> Duration {
        guard authorizeTimeout > 0, authorizeTimeout <= 3600 else {
            throw ValidationError(
                "--authorize-timeout is more than 0 and at most 3600 seconds, not \(authorizeTimeout)")
        }
        return .milliseconds(Int64(authorizeTimeout * 1000))
    }
}
