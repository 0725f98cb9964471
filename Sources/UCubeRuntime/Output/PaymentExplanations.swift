import UCubePayment
import UCubeProtocol

/// The explanations of a payment's data objects (`Explainer`): what `pay --json` adds as `explanations`, and what
/// the shell's `context` and `tlv TAG` views show below the summary. Only the plain tags a payment keeps (`SafeTLV`,
/// never cardholder data) and its TVR and TSI are explained.
package enum PaymentExplanations {
    /// The explained objects: the plain tags read for the authorization and after finalisation (the later value of
    /// a tag read twice), then the TVR and TSI the payment recorded when no tag carried them.
    package static func fields(_ context: PaymentContext) -> [ExplainedField] {
        Explainer.fields(objects(context), context: .payment, siblings: siblings(context))
    }

    /// The explanation of one tag the payment holds, or nil.
    package static func explanation(of tag: Tag, in context: PaymentContext) -> Explanation? {
        guard let object = objects(context).last(where: { $0.tag == tag }) else { return nil }
        return Explainer.explain(object, context: .payment, siblings: siblings(context))
    }

    private static func objects(_ context: PaymentContext) -> [TLV] {
        var objects: [TLV] = []
        for tag in context.authorizationPlainTags + context.finalizationPlainTags {
            objects.removeAll { $0.tag == tag.tag }
            objects.append(TLV(tag.tag, tag.value))
        }
        if let tvr = context.tvr, !objects.contains(where: { $0.tag == Tag(0x95) }) {
            objects.append(TLV(Tag(0x95), tvr))
        }
        if let tsi = context.tsi, !objects.contains(where: { $0.tag == Tag(0x9B) }) {
            objects.append(TLV(Tag(0x9B), tsi))
        }
        return objects
    }

    /// The objects, and the request's currency as 5F2A when no tag carried it (amounts are read with it).
    private static func siblings(_ context: PaymentContext) -> [TLV] {
        var all = objects(context)
        if !all.contains(where: { $0.tag == Tag(0x5F2A) }) {
            let n = context.request.currency.numeric
            all.append(
                TLV(Tag(0x5F2A), [UInt8((n / 1000 % 10) << 4 | (n / 100 % 10)), UInt8((n / 10 % 10) << 4 | (n % 10))]))
        }
        return all
    }
}

extension [ExplainedField] {
    /// "95 terminalVerificationResults: 8000000000" then its explanation, two spaces in, for each field.
    package var displayLines: [String] {
        flatMap { field in
            ["\(field.tag)\(field.name.map { " " + $0 } ?? ""): \(field.value)"] + field.explanation.map { "  " + $0 }
        }
    }
}

/// A payment's context as `pay --json` and the shell's `context --json` print it: every key of `PaymentContext`,
/// plus `explanations` (`PaymentExplanations.fields`).
package struct PaymentContextJSON: Encodable {
    package let context: PaymentContext
    /// With `--receipt`.
    package var receipt: Receipt? = nil
    /// With a host (`--authorize exec:…`): its decision, beside the card's (`status`).
    package var host: HostAuthorization.HostExchange? = nil

    package init(context: PaymentContext, receipt: Receipt? = nil, host: HostAuthorization.HostExchange? = nil) {
        self.context = context
        self.receipt = receipt
        self.host = host
    }

    private enum CodingKeys: String, CodingKey { case explanations, receipt, host }

    package func encode(to encoder: any Encoder) throws {
        try context.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(PaymentExplanations.fields(context), forKey: .explanations)
        try c.encodeIfPresent(receipt, forKey: .receipt)
        try c.encodeIfPresent(host, forKey: .host)
    }
}
