import UCubePayment

/// What the command line shows of a payment while it runs (the cardholder's next step, in place on stderr).
package protocol PaymentProgressDisplay: Sendable {
    /// An event of the engine, as it happens.
    func show(_ event: PaymentEvent)
    /// The payment ended.
    func finish()
}
