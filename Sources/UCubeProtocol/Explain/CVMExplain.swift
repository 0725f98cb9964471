/// Cardholder verification: the CVM list (8E), the CVM results (9F34), and the terminal type (9F35), whose values
/// are codes rather than bit flags.
package enum CVMTables {
    /// CV Rule byte 1 bits 6–1, the CVM code: EMV 4.4 Book 3 Annex C3 Table 43.
    package static let source = "EMV 4.4 Book 3 Annex C3 Tables 43-44"

    /// The CVM code's name (bits 6–1 of a CV Rule's first byte).
    package static func method(_ code: UInt8) -> String {
        switch code & 0x3F {
        case 0x00: "Fail CVM processing"
        case 0x01: "Plaintext PIN verification performed by ICC"
        case 0x02: "Enciphered PIN verified online"
        case 0x03: "Plaintext PIN verification performed by ICC and signature (paper)"
        case 0x04: "Enciphered PIN verification performed by ICC"
        case 0x05: "Enciphered PIN verification performed by ICC and signature (paper)"
        case 0x06: "Facial biometric verified offline (by ICC)"
        case 0x07: "Facial biometric verified online"
        case 0x08: "Finger biometric verified offline (by ICC)"
        case 0x09: "Finger biometric verified online"
        case 0x0A: "Palm biometric verified offline (by ICC)"
        case 0x0B: "Palm biometric verified online"
        case 0x0C: "Iris biometric verified offline (by ICC)"
        case 0x0D: "Iris biometric verified online"
        case 0x0E: "Voice biometric verified offline (by ICC)"
        case 0x0F: "Voice biometric verified online"
        case 0x1E: "Signature (paper)"
        case 0x1F: "No CVM required"
        case 0x10...0x1D: "RFU"
        case 0x20...0x2F: "reserved for use by the individual payment systems"
        case 0x30...0x3E: "reserved for use by the issuer"
        default: "not available for use"
        }
    }

    /// CV Rule byte 2, the CVM condition code: EMV 4.4 Book 3 Annex C3 Table 44.
    package static func condition(_ code: UInt8) -> String {
        switch code {
        case 0x00: "Always"
        case 0x01: "If unattended cash"
        case 0x02: "If not unattended cash and not manual cash and not purchase with cashback"
        case 0x03: "If terminal supports the CVM"
        case 0x04: "If manual cash"
        case 0x05: "If purchase with cashback"
        case 0x06: "If transaction is in the application currency and is under X value"
        case 0x07: "If transaction is in the application currency and is over X value"
        case 0x08: "If transaction is in the application currency and is under Y value"
        case 0x09: "If transaction is in the application currency and is over Y value"
        case 0x0A...0x7F: "RFU"
        default: "reserved for use by the individual payment systems"
        }
    }

    /// CV Rule byte 1 bit 7 (bit 8 is RFU).
    static func onFailure(_ code: UInt8) -> String {
        code & 0x40 != 0
            ? "apply succeeding CV Rule if this CVM is unsuccessful"
            : "fail cardholder verification if this CVM is unsuccessful"
    }

    /// 8E: Amount X and Amount Y (4 bytes binary each, in the application currency), then CV Rules of 2 bytes.
    /// `currency` is the application currency (9F42) when it travels alongside.
    package static func cvmList(_ value: [UInt8], currency: Currency?) -> Explanation {
        guard value.count >= 8, value.count % 2 == 0 else {
            return Explanation(
                source: source,
                lines: [
                    "\(value.count) bytes: a CVM list is Amount X and Amount Y (4 bytes each) then 2-byte CV Rules; not explained"
                ])
        }
        func amount(_ bytes: ArraySlice<UInt8>) -> String {
            let n = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return currency.map { "\(n) (\($0.format(minorUnits: n)))" } ?? String(n)
        }
        var lines = ["Amount X: \(amount(value[0..<4]))", "Amount Y: \(amount(value[4..<8]))"]
        var index = 8
        var rule = 1
        while index < value.count {
            let code = value[index]
            let cond = value[index + 1]
            var line =
                "rule \(rule) \(Hex.encode([code, cond])): \(method(code)); \(condition(cond)); \(onFailure(code))"
            if code & 0x80 != 0 { line += "; byte 1 bit 8 RFU, set (should be 0)" }
            lines.append(line)
            index += 2
            rule += 1
        }
        if rule == 1 { lines.append("no CV Rule") }
        return Explanation(source: source, lines: lines)
    }

    /// 9F34 CVM Results: EMV 4.4 Book 4 Annex A4 Table 33.
    package static let resultsSource = "EMV 4.4 Book 4 Annex A4 Table 33; CVM codes: EMV 4.4 Book 3 Annex C3"

    package static func cvmResults(_ value: [UInt8]) -> Explanation {
        guard value.count == 3 else {
            return Explanation(source: resultsSource, lines: ["\(value.count) bytes: CVM Results has 3; not explained"])
        }
        let performed = value[0]
        let method =
            performed & 0x3F == 0x3F
            ? "no CVM performed" : "\(self.method(performed)); \(onFailure(performed))"
        let result: String =
            switch value[2] {
            case 0x00: "Unknown"
            case 0x01: "Failed"
            case 0x02: "Successful"
            default: "RFU"
            }
        return Explanation(
            source: resultsSource,
            lines: [
                "CVM performed \(Hex.encode([performed])): \(method)",
                "CVM condition \(Hex.encode([value[1]])): \(condition(value[1]))",
                "CVM result \(Hex.encode([value[2]])): \(result)",
            ])
    }

    /// 9F35 Terminal Type: EMV 4.4 Book 4 Annex A1 Table 24. Two digits: who operates the terminal, then its
    /// environment; a terminal operated by the cardholder is always unattended (34, 35, 36).
    package static let terminalTypeSource = "EMV 4.4 Book 4 Annex A1 Table 24"

    package static func terminalType(_ value: [UInt8]) -> Explanation {
        let control: [UInt8: String] = [1: "Financial institution", 2: "Merchant", 3: "Cardholder"]
        let environment: [UInt8: String] = [
            1: "Attended, online only", 2: "Attended, offline with online capability", 3: "Attended, offline only",
            4: "Unattended, online only", 5: "Unattended, offline with online capability",
            6: "Unattended, offline only",
        ]
        guard value.count == 1, let who = control[value[0] >> 4], let where_ = environment[value[0] & 0x0F],
            value[0] >> 4 != 3 || value[0] & 0x0F >= 4
        else {
            return Explanation(
                source: terminalTypeSource, lines: ["\(Hex.encode(value)): not a terminal type of Table 24"])
        }
        return Explanation(
            source: terminalTypeSource,
            lines: ["operational control: \(who)", "environment: \(where_)"])
    }
}
