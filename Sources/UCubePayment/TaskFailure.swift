import UCubeProtocol

/// Why a task hook (application selection, risk management, authorisation) failed: its sentence, and its code when
/// the error has one (a `CodedError` whose code is a string, as every error of this package's is), kept in the
/// payment's errors (`PaymentError.code`) rather than lost in a string.
package struct TaskFailure: Hashable, Sendable {
    package let code: String?
    package let reason: String

    package init(code: String? = nil, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// `error`'s code and reason (its description when it has no code).
    package init(_ error: any Error) {
        guard let coded = error as? any CodedError else {
            self.init(reason: "\(error)")
            return
        }
        self.init(code: (coded.code as? any RawRepresentable)?.rawValue as? String, reason: coded.reason)
    }
}
