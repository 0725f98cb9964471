import UCubePayment
import UCubeProtocol
import UCubeRuntime

/// The human summary of a payment.
enum PaymentSummary {
    static func lines(_ c: PaymentContext) -> [String] {
        var out: [String] = []
        func add(_ label: String, _ value: String?) {
            if let value, !value.isEmpty { out.append("\(label): \(value)") }
        }
        add("status", (c.status?.name ?? "unknown") + (c.statusReason.map { " (\($0))" } ?? ""))
        add(
            "amount",
            c.amount.map { c.request.currency.format(minorUnits: $0) + " (\(c.request.transactionType.name))" })
        add("device", c.device.map { $0 + (c.simulated ? " (simulated: not a real payment)" : "") })
        add("entry mode", c.entryMode?.rawValue)
        if let aid = c.selectedAID { add("application", Hex.encode(aid) + (c.applicationLabel.map { " " + $0 } ?? "")) }
        add(
            "card",
            c.maskedPAN.map { pan in
                pan
                    + (c.expiryMonth.flatMap { m in c.expiryYear.map { " exp \(twoDigits(m))/\(twoDigits($0 % 100))" } }
                        ?? "")
            })
        out.append("signature required: \(c.signatureRequired ? "yes" : "no")")
        add(
            "cryptogram",
            c.cryptogramType.map { $0.name.uppercased() + (c.cryptogram.map { " " + Hex.encode($0) } ?? "") })
        add("TVR", c.tvr.map { Hex.encode($0) })
        add("TSI", c.tsi.map { Hex.encode($0) })
        add("authorization", c.authorization.map { "8A " + String(decoding: $0.arc, as: UTF8.self) })
        add(
            "NFC outcome",
            (c.nfcFinalOutcome ?? c.nfcOutcome).map {
                TagValueFormatter.render(TLV(Tag(0xDF72), $0.bytes), context: .payment)
            })
        add("SRED KSN", c.sredKSN.map { Hex.encode($0) })
        add("PIN KSN", c.pinKSN.map { Hex.encode($0) })
        add("request id", c.request.requestID)
        out.append("round trips: \(c.roundTrips)")
        if let timings = c.timings, !timings.phases.isEmpty {
            out.append(
                "timings: "
                    + timings.phases.map { "\($0.phase.label) \(twoDecimals($0.seconds)) s" }.joined(separator: ", "))
        }
        for e in c.errors { out.append("error\(e.state.map { " at \($0)" } ?? ""): \(e.reason)") }
        return out
    }

    /// The host's part (`--authorize exec:…`): its decision and 8A, what it did wrong, the reversal.
    static func hostLines(_ host: HostAuthorization.HostExchange?) -> [String] {
        guard let host else { return [] }
        var out = [
            "host: \(host.decision) (8A \(host.responseCode))" + (host.hostReference.map { ", reference \($0)" } ?? "")
        ]
        if let problem = host.problem { out.append("host problem: \(problem)") }
        if let reversal = host.reversal { out.append("reversal: \(reversal)") }
        return out
    }

    /// `value` as `%02d` writes it, without `String(format:)`.
    static func twoDigits(_ value: Int) -> String { (0..<10).contains(value) ? "0\(value)" : "\(value)" }

    /// `seconds` with two decimals, as `%.2f` writes it (half to even), without `String(format:)`: its first use
    /// sets up Foundation's formatting machinery, on every payment (issue 27).
    static func twoDecimals(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e15 else { return "\(seconds)" }
        let product = abs(seconds) * 100
        var rounded = product.rounded(.toNearestOrEven)
        // A tie after the multiplication may be none in the exact product: its residual (exact, by a fused
        // multiply-add) says which way printf, which rounds the exact value, goes.
        if product - product.rounded(.down) == 0.5 {
            let residual = (-product).addingProduct(abs(seconds), 100)
            if residual > 0 { rounded = product.rounded(.up) } else if residual < 0 { rounded = product.rounded(.down) }
        }
        let hundredths = Int(rounded)
        let fraction = hundredths % 100
        return (seconds < 0 && hundredths > 0 ? "-" : "") + "\(hundredths / 100)." + (fraction < 10 ? "0" : "")
            + "\(fraction)"
    }
}

/// `pay`'s result: the outcome as JSON, or as text its summary and, with `--receipt`, the receipt after a blank line.
extension PaymentContextJSON: Report {
    package var lines: [String] {
        PaymentSummary.lines(context) + PaymentSummary.hostLines(host) + (receipt.map { [""] + $0.lines() } ?? [])
    }
}
