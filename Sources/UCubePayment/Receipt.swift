import Foundation
import UCubeProtocol
import UCubeSupport

/// A payment's receipt (`pay --receipt`, `history show ID --receipt`), from what the journal keeps of it. The fields
/// are those the issue names after EMV Book 4's receipt requirements (Cardholder, Attendant, and Acquirer Interface
/// Requirements), plus the status and the request id:
/// amount and currency, date and time, transaction type, the masked PAN, the application label and AID, the entry
/// mode, the cardholder verification (with a signature line when a signature is required), the authorization
/// response code, the application cryptogram, the TVR and the TSI. Never clear card data: the journal holds the
/// masked PAN only.
package struct Receipt: Encodable, Hashable, Sendable {
    package var requestID: String
    /// ISO 8601, UTC: when the payment ended (else started).
    package var time: String?
    package var type: String?
    package var amount: UInt64?
    package var currency: String?
    /// "12.50 EUR".
    package var amountText: String?
    package var status: String
    /// The operator's decision, for a payment whose outcome was unknown.
    package var resolvedStatus: String?
    package var maskedPAN: String?
    package var application: String?
    package var aid: String?
    /// "chip", "contactless", "magstripe".
    package var entryMode: String?
    /// What 9F34 says was performed (EMV Book 3 Annex C3), or "signature" for a contactless signature outcome.
    package var cvm: String?
    package var signatureRequired: Bool
    package var authorizationResponseCode: String?
    package var cryptogramType: String?
    package var cryptogram: String?
    package var tvr: String?
    package var tsi: String?
    /// Taken on a simulator or a recording: the receipt says, twice, that it is no valid transaction.
    package var simulated: Bool

    /// What a simulated payment's receipt says, at its top and its foot.
    package static let testBanner = "*** TEST – NOT A VALID TRANSACTION ***"

    package init(_ entry: JournalEntry) {
        simulated = entry.simulated
        requestID = entry.requestID
        time = entry.finishedAt ?? entry.startedAt
        type = entry.type
        amount = entry.amount
        currency = entry.currency
        if let amount = entry.amount, let currency = entry.currency.flatMap(Currency.lookup) {
            amountText = currency.format(minorUnits: amount)
        }
        status = entry.status
        resolvedStatus = entry.resolution?.status
        maskedPAN = entry.maskedPAN
        application = entry.applicationLabel
        aid = entry.aid
        entryMode = entry.entryMode.flatMap(EntryMode.init(rawValue:)).map(\.receiptName)
        signatureRequired = entry.signatureRequired ?? false
        if let hex = entry.cvmResults, let bytes = try? Hex.decode(hex), bytes.count == 3 {
            cvm = bytes[0] & 0x3F == 0x3F ? "no CVM performed" : CVMTables.method(bytes[0])
        } else if signatureRequired {
            cvm = CVMTables.method(0x1E)
        }
        authorizationResponseCode = entry.authorizationResponseCode
        cryptogramType = entry.cryptogramType
        cryptogram = entry.cryptogram
        tvr = entry.tvr
        tsi = entry.tsi
    }

    /// The receipt as text `width` columns wide (40: a receipt printer's roll), one field a line, its label on the
    /// left and its value on the right (below it, when both do not fit). Its date is local time, in the zone whose
    /// offset at a UTC second `offset` gives (`LocalTime`: `TZ`, else the system's zone).
    package func lines(width: Int = 40, offset: (Int64) -> Int = LocalTime.systemOffset) -> [String] {
        let width = max(width, 24)
        var out: [String] = []
        func centred(_ text: String) {
            let pad = max(0, (width - text.count) / 2)
            out.append(String(repeating: " ", count: pad) + text)
        }
        func field(_ label: String, _ value: String?) {
            guard let value, !value.isEmpty else { return }
            if label.count + 1 + value.count <= width {
                out.append(label + String(repeating: " ", count: width - label.count - value.count) + value)
            } else {
                out.append(label)
                for start in stride(from: 0, to: value.count, by: width) {
                    let piece = String(value.dropFirst(start).prefix(width))
                    out.append(String(repeating: " ", count: width - piece.count) + piece)
                }
            }
        }
        let rule = String(repeating: "-", count: width)
        centred((type ?? "payment").uppercased())
        if simulated { centred(Self.testBanner) }
        out.append(rule)
        field("Date", time.map { LocalTime.text($0, offset: offset) })
        field("Amount", amountText ?? amount.map(String.init))
        field("Status", status)
        field("Resolved as", resolvedStatus)
        out.append(rule)
        field("Card", maskedPAN)
        field("Application", application)
        field("AID", aid)
        field("Entry", entryMode)
        field("CVM", cvm)
        field("ARC", authorizationResponseCode)
        field("Cryptogram", [cryptogramType, cryptogram].compactMap { $0 }.joined(separator: " "))
        field("TVR", tvr)
        field("TSI", tsi)
        out.append(rule)
        field("Ref", requestID)
        if signatureRequired {
            out.append("")
            out.append("")
            out.append(String(repeating: "_", count: width))
            centred("Cardholder signature")
        }
        if simulated {
            out.append(rule)
            centred(Self.testBanner)
        }
        return out
    }
}

extension EntryMode {
    /// How a receipt names the entry mode.
    var receiptName: String {
        switch self {
        case .icc: "chip"
        case .nfc: "contactless"
        case .msr: "magstripe"
        }
    }
}
