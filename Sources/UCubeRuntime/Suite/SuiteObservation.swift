import Foundation
import UCubePayment
import UCubeProtocol

/// What a payment gave, in the terms a case expects.
package struct SuiteObservation: Equatable {
    package var status: PaymentStatus?
    package var tvr: [UInt8]?
    package var tsi: [UInt8]?
    package var cvmResult: [UInt8]?
    package var cryptogram: CryptogramType?
    /// Why the payment ended so, or why it could not run.
    package var reason: String?

    package init(_ context: PaymentContext) {
        status = context.status
        tvr = context.tvr
        tsi = context.tsi
        // The last 9F34 the terminal gave: after finalisation, else before the authorization.
        let tags = context.finalizationPlainTags + context.authorizationPlainTags
        cvmResult = tags.first { $0.tag == Tag(0x9F34) }?.value
        cryptogram = context.cryptogramType
        reason = context.statusReason
    }

    package init(failure: String) { reason = failure }
}
