import Foundation
import UCubePayment
import UCubeProtocol
import UCubeRuntime

extension PaymentTasks {
    /// `authorization` with `prompt` read from `prompts` (nil: nobody can answer one).
    static func authorization(
        _ text: String, field: String = "--authorize", prompts: PromptSource?,
        timeout: Duration = HostChoices.defaultTimeout, files: HostTLSFiles = HostChoices.files()
    ) throws -> any AuthorizationTask {
        try authorization(
            text, field: field, prompt: prompts.map(PromptAuthorization.init(source:)), timeout: timeout, files: files)
    }

    /// `selection` with `prompt` read from `prompts` (nil: nobody can answer one).
    static func selection(
        _ text: String, field: String = "--select", prompts: PromptSource?
    ) throws -> any ApplicationSelectionTask {
        try selection(text, field: field, prompt: prompts.map(PromptSelection.init(source:)))
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
