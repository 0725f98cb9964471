/// `ucube cancel`'s answer: `{"message":"…","result":"cancelled"}`, or the message; `ucube serve`'s
/// `POST /v1/payments/{id}/cancel` answers the same.
package struct CancelReport: Report, Sendable {
    package let result: String
    package let message: String

    package init(result: String, message: String) {
        self.result = result
        self.message = message
    }

    package var lines: [String] { [message] }
}
