import Foundation
import Synchronization
import UCubeLink
import UCubePayment
import UCubeProtocol
import UCubeRuntime

/// `pay … --step` in the shell: before each state, shows the state, the command or task that comes next and the
/// context so far, then reads `next`, `continue`, `context`, `tlv TAG` or `cancel` at the shell's prompt.
final class PaymentStepping: Sendable {
    private let session: any CommandShell
    private let json: Bool
    private let engine = Mutex<PaymentEngine?>(nil)
    private let continuing = Mutex(false)

    init(session: any CommandShell, json: Bool) {
        self.session = session
        self.json = json
    }

    func attach(_ engine: PaymentEngine) { self.engine.withLock { $0 = engine } }

    static let help = "paused: next (one state), continue (to the end), context, tlv TAG, cancel"

    /// The engine's pause hook.
    func pause(_ step: PaymentStep) async {
        guard !continuing.withLock({ $0 }) else { return }
        print("\(step.state?.name ?? "START"): next \(Self.describe(step.action))")
        for line in Self.contextLines(step.context) { print("  " + line) }
        while true {
            switch await session.readLine(prompt: "ucube step> ") {
            case .end, .interrupted, .tooLong:
                await cancel()
                return
            case .line(let line):
                let words = (try? ShellWords.split(line)) ?? []
                guard let first = words.first else { continue }
                switch StepCommand(rawValue: first) {
                case .next:
                    return
                case .continue:
                    continuing.withLock { $0 = true }
                    return
                case .context:
                    showContext(step.context)
                case .tlv:
                    guard words.count == 2 else {
                        print("usage: tlv TAG (hex or a tag dictionary name)")
                        continue
                    }
                    print(Self.tlv(words[1], in: step.context))
                    for line in Self.tlvExplanation(words[1], in: step.context) { print("  " + line) }
                case .cancel:
                    await cancel()
                    return
                case nil:
                    if first == ShellBuiltin.set.rawValue {
                        do {
                            print(try session.applySetting(Array(words.dropFirst())))
                        } catch {
                            StandardError.write("ucube: error: \(error.message)")
                        }
                    } else {
                        print(Self.help)
                    }
                }
            }
        }
    }

    /// Asks the engine to cancel (the normal rule: too late once the card is read), then runs to the end.
    private func cancel() async {
        continuing.withLock { $0 = true }
        guard let engine = engine.withLock({ $0 }) else { return }
        print(CancelAnswer(await engine.cancel()).message)
    }

    private func showContext(_ context: PaymentContext) {
        if json, let text = try? JSONOutput.encode(PaymentContextJSON(context: context), pretty: false, versioned: true)
        {
            print(text)
        } else {
            for line in Self.contextLines(context) { print(line) }
        }
    }

    /// "BuildCandidateList (5510)", "task: select an application among 2".
    static func describe(_ action: PaymentAction) -> String {
        switch action {
        case .send(let command):
            let name = CommandCatalogue.descriptor(for: command.id)?.name ?? "command"
            return "\(name) (\(Hex.encode([UInt8(command.id.rawValue >> 8), UInt8(command.id.rawValue & 0xFF)])))"
        case .runTask(.selectApplication(let candidates)):
            return "task: select an application among \(candidates.count)"
        case .runTask(.riskManagement): return "task: risk management (TVR)"
        case .runTask(.authorize): return "task: authorization"
        case .cancelPendingCommand: return "CancelAll"
        case .none: return "nothing"
        case .finish(let outcome): return "finish \(outcome.status)"
        }
    }

    /// The summary so far, the states, then the explained data objects (TVR, TSI, the plain tags read).
    static func contextLines(_ context: PaymentContext) -> [String] {
        var lines = PaymentSummary.lines(context).filter { !$0.hasPrefix("status: unknown") }
        if !context.states.isEmpty { lines.append("states: " + context.states.map(\.name).joined(separator: " ")) }
        let explained = PaymentExplanations.fields(context)
        if !explained.isEmpty {
            lines.append("explained:")
            lines += explained.displayLines.map { "  " + $0 }
        }
        return lines
    }

    /// The explanation of `tlv TAG`'s tag (`Explainer`), one line each; none for a tag not explained or not read.
    static func tlvExplanation(_ word: String, in context: PaymentContext) -> [String] {
        guard let tag = Tag(word) else { return [] }
        return PaymentExplanations.explanation(of: tag, in: context)?.lines ?? []
    }

    /// One tag from the plain tags the payment has read so far.
    static func tlv(_ word: String, in context: PaymentContext) -> String {
        guard let tag = Tag(word) else { return "not a tag: \(word) (hex, e.g. 9F27, or a tag dictionary name)" }
        guard
            let found = (context.authorizationPlainTags + context.finalizationPlainTags).last(where: { $0.tag == tag })
        else {
            return "\(tag) is not among the plain tags read so far"
        }
        return TagValueFormatter.render(TLV(found.tag, found.value), context: .payment)
    }
}
