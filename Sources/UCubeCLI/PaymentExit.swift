import UCubePayment

extension ExitCodes {
    /// The exit code of a payment's final status (one place: README and man page list the same table).
    static func code(for status: PaymentStatus) -> Entry {
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
