import UCubePayment
import UCubeProtocol

extension ExitCodes {
    /// The exit code of a payment's final status (one place: README and man page list the same table).
    package static func code(for status: PaymentStatus) -> Entry {
        switch status {
        case .approved: ok
        case .declined: declined
        case .cancelled: cancelled
        case .cardWaitFailed, .unsupportedCard, .refusedCard, .nfcOutcomeTryOtherInterface, .nfcOutcomeEndApplication,
            .nfcOutcomeFailed, .chipRequired:
            card
        case .errorDisconnect: link
        case .error, .errorShuttingDown, .errorWrongActivatedReader, .errorMissingRequiredCryptogram,
            .errorWrongCryptogramValue, .errorWrongNFCOutcome, .nfcMPOSError:
            paymentError
        }
    }
}

/// A payment's fate in one line, for stderr when the usual places (the journal, stdout, the receipt file) could not
/// take it: "payment APPROVED: 10.00 EUR, request id 5F0C…". A script that sees a non-zero exit reads it before
/// retrying: APPROVED means the card was charged.
package enum PaymentFate {
    package static func line(_ context: PaymentContext) -> String {
        let amount = context.amount.map { context.request.currency.format(minorUnits: $0) } ?? "no amount"
        return "payment \(context.status?.name ?? "unknown"): \(amount), request id \(context.request.requestID)"
    }
}
