import UCubePayment

/// A payment's settings as `pay` reads them from its words. `ucube serve` checks an order as `pay` checks its
/// command line: the order becomes `pay`'s words, and the command line hands in its parser (`ServePayments`).
package protocol PaymentWords: Sendable {
    /// The engine's request, for the authorisation `hook` the payment will use.
    func request(authorizing hook: RememberedHook) throws -> PaymentRequest
    /// `--select`'s task, without a prompt: a served payment's choice is its client's.
    func selectionTask() throws -> any ApplicationSelectionTask
}

/// Why an order's words are not a valid payment: `pay`'s own message.
package struct PaymentWordsRefused: Error, Sendable {
    package let message: String

    package init(_ message: String) { self.message = message }
}
