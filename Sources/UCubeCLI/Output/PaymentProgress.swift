import Foundation
import Synchronization
import UCubePayment
import UCubeProtocol
import UCubeRuntime

/// What the cardholder must do now, on a terminal's stderr, updated in place (`StatusLine`): "Insert, tap or swipe
/// a card (27 s left)" while the terminal waits for one, then "Enter the PIN on the terminal", "Remove the card".
/// Nothing when stderr is not a terminal, so piped output gets nothing extra.
final class PaymentProgress: Sendable {
    private let request: PaymentRequest
    private let countdown = Countdown()

    /// A display for `request`, or nil when stderr is not a terminal or `quiet` (`--events`, `--step`).
    static func make(_ request: PaymentRequest, quiet: Bool) -> PaymentProgress? {
        guard !quiet, isatty(STDERR_FILENO) == 1 else { return nil }
        return PaymentProgress(request)
    }

    private init(_ request: PaymentRequest) { self.request = request }

    /// A payment event: a state that asks the cardholder for something shows it; any other clears the line.
    func show(_ event: PaymentEvent) {
        countdown.stop()
        guard case .stateChanged(let state) = event, let message = Self.message(for: state, readers: request.readers)
        else {
            StatusLine.clear()
            return
        }
        guard Self.waitsForCard(state) else {
            StatusLine.draw(message)
            return
        }
        countdown.start(message, seconds: request.cardWaitTimeout)
    }

    /// The payment ended: the prompt no longer applies.
    func finish() {
        countdown.stop()
        StatusLine.clear()
    }

    static func waitsForCard(_ state: PaymentState) -> Bool { state.row.cardholder == .presentCard }

    /// The cardholder's instruction in `state` (what its row in the state table asks of them), or nil when there is
    /// nothing for them to do.
    static func message(for state: PaymentState, readers: [CardReader]) -> String? {
        state.row.cardholder.map { instruction($0, readers: readers) }
    }

    /// The words of `prompt`; a card is presented in the ways `readers` allow.
    static func instruction(_ prompt: PaymentState.Prompt, readers: [CardReader]) -> String {
        switch prompt {
        case .presentCard:
            let verbs = readers.map { reader -> String in
                switch reader {
                case .icc: "insert"
                case .nfc: "tap"
                case .msr: "swipe"
                }
            }
            let list =
                verbs.count > 1
                ? verbs.dropLast().joined(separator: ", ") + " or " + verbs.last! : verbs.first ?? "present"
            return list.prefix(1).uppercased() + list.dropFirst() + " a card"
        case .leaveCardInReader: return "Card read: leave it in the reader (enter the PIN on the terminal if it asks)"
        case .chooseApplication: return "Choose the application on the terminal"
        case .enterPIN: return "Enter the PIN on the terminal"
        case .leaveCardWhileFinishing: return "Finishing: leave the card in the reader"
        case .removeCard: return "Remove the card"
        }
    }
}

/// "MESSAGE (27 s left)" on a terminal's stderr (`StatusLine`), redrawn each second while something waits for the
/// cardholder: a payment's or `read-card`'s card wait, `display --wait-key`'s key. Nothing when stderr is not a
/// terminal (`onTerminal`), so piped output gets nothing extra.
final class Countdown: Sendable {
    private let ticker = Mutex<Task<Void, Never>?>(nil)

    /// A countdown for a command's wait, or nil when stderr is not a terminal or the output is JSON.
    static func onTerminal(json: Bool) -> Countdown? { !json && isatty(STDERR_FILENO) == 1 ? Countdown() : nil }

    func start(_ message: String, seconds: Int) {
        stop()
        let deadline = ContinuousClock.now + .seconds(seconds)
        let task = Task {
            while !Task.isCancelled {
                let left = max(0, Int((deadline - .now).components.seconds))
                StatusLine.draw("\(message) (\(left) s left)")
                try? await Task.sleep(for: .seconds(1))
            }
        }
        ticker.withLock { $0 = task }
    }

    /// Stops redrawing; the line stays until cleared (`finish`) or ended by another message.
    func stop() {
        ticker.withLock {
            $0?.cancel()
            $0 = nil
        }
    }

    /// Stops and erases the line.
    func finish() {
        stop()
        StatusLine.clear()
    }
}
