import UCubeProtocol

/// Which terminal a TMS request is about: the `{serial}/{partNumber}` suffix of every endpoint (spec §10.2).
package struct TerminalIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The decimal serial number of spec §4 (C3 / 4).
    package let serial: String
    /// The part number, ASCII with spaces removed (spec §4).
    package let partNumber: String

    /// Throws `.configuration` unless `serial` is 1…20 decimal digits and `partNumber` is 1…32 printable ASCII
    /// characters without spaces or '/'.
    package init(serial: String, partNumber: String) throws(TMSError) {
        guard (1...20).contains(serial.utf8.count), serial.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw TMSError(.configuration, "terminal serial number \"\(serial.prefix(40))\" is not decimal digits")
        }
        let pn = partNumber.filter { $0 != " " }
        guard (1...32).contains(pn.utf8.count), pn.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != 0x2F }) else {
            throw TMSError(.configuration, "terminal part number \"\(partNumber.prefix(40))\" is not printable ASCII")
        }
        self.serial = serial
        self.partNumber = pn
    }

    /// From a GetInfo response holding C2 and C3 (spec §7.1). Old uCube firmware swaps the two (spec §4, A-DevInfos):
    /// when C3 is not 5 bytes but C2 is, they are read the other way round.
    package init(_ info: DeviceInfo) throws(TMSError) {
        if let serial = info.serialNumber, let pn = info.partNumber {
            try self.init(serial: serial, partNumber: pn)
            return
        }
        let c2 = info.tlvs.first { $0.tag == Tag(0xC2) }?.value
        let c3 = info.tlvs.first { $0.tag == Tag(0xC3) }?.value
        if let c2, let c3, c2.count == 5 {
            let swapped = DeviceInfo(tlvs: [TLV(Tag(0xC2), c3), TLV(Tag(0xC3), c2)])
            if let serial = swapped.serialNumber, let pn = swapped.partNumber {
                try self.init(serial: serial, partNumber: pn)
                return
            }
        }
        throw TMSError(.configuration, "GetInfo did not return the terminal serial number (C3) and part number (C2)")
    }

    /// The part number as it goes in a URL path (percent-encoded outside unreserved characters).
    var pathPartNumber: String {
        var out = ""
        for b in partNumber.utf8 {
            let c = Character(Unicode.Scalar(b))
            if c.isASCII && (c.isLetter || c.isNumber || "-._~".contains(c)) {
                out.append(c)
            } else {
                out += "%" + String(b, radix: 16, uppercase: true).leftPadded(2)
            }
        }
        return out
    }

    package var description: String { "\(serial)/\(partNumber)" }
}

extension String {
    fileprivate func leftPadded(_ n: Int) -> String { String(repeating: "0", count: Swift.max(0, n - count)) + self }
}
