/// A command identifier as it travels in a frame (spec §5.1). An open set: unknown ids still decode and print.
package struct CommandID: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    package let rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }
    package init(_ rawValue: UInt16) { self.rawValue = rawValue }

    package static func < (lhs: CommandID, rhs: CommandID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// "0x5001 GetInfo" for a known id, "0x1234" otherwise.
    package var description: String {
        let hex = "0x" + Hex.encode([UInt8(rawValue >> 8), UInt8(rawValue & 0xFF)])
        if let d = CommandCatalogue.descriptor(for: self) { return "\(hex) \(d.name)" }
        return hex
    }

    package static let cancelAll = CommandID(0x0202)
    package static let rtcGet = CommandID(0x0301)
    package static let rtcSet = CommandID(0x0302)
    package static let repeatLastMessage = CommandID(0x0330)
    package static let getStatus = CommandID(0x0331)
    package static let getInfo = CommandID(0x5001)
    package static let setInfoProd = CommandID(0x5002)
    package static let setInfoField = CommandID(0x5003)
    package static let waitCard = CommandID(0x5020)
    package static let waitCardRemoval = CommandID(0x5021)
    package static let cardSendAPDU = CommandID(0x5022)
    package static let cardPowerOff = CommandID(0x5023)
    package static let magstripeRead = CommandID(0x5024)
    package static let getSecuredTag = CommandID(0x5025)
    package static let getPlainTag = CommandID(0x5026)
    package static let displayMessage = CommandID(0x5040)
    package static let displayListBox = CommandID(0x5042)
    package static let displayMessageWithKI = CommandID(0x5043)
    package static let displayMessageWithKICustom = CommandID(0x5045)
    package static let powerOff = CommandID(0x5060)
    package static let enterSecureSession = CommandID(0x5101)
    package static let exitSecureSession = CommandID(0x5102)
    package static let getKeyInfo = CommandID(0x5110)
    package static let exportPublicKey = CommandID(0x5120)
    package static let importPublicKeyCert = CommandID(0x5121)
    package static let importPublicKeyPersoCert = CommandID(0x5122)
    package static let installForLoadKey = CommandID(0x5130)
    package static let loadKey = CommandID(0x5131)
    package static let installForLoad = CommandID(0x5160)
    package static let load = CommandID(0x5161)
    package static let onlinePIN = CommandID(0x5170)
    package static let simplifiedOnlinePIN = CommandID(0x5171)
    package static let bankParametersDownload = CommandID(0x5501)
    package static let bankParametersGet = CommandID(0x5503)
    package static let buildCandidateList = CommandID(0x5510)
    package static let transactionInit = CommandID(0x5511)
    package static let transactionProcess = CommandID(0x5512)
    package static let transactionFinalisation = CommandID(0x5513)
    package static let nfcStartTransaction = CommandID(0x5530)
    package static let nfcCompleteTransaction = CommandID(0x5531)
    /// Response only: "unable to recognize command" (spec §2.7).
    package static let unrecognised = CommandID(0x8000)
}

/// How a command's data is protected in SECURED state (spec §2.3, newer SDK's `SecurityMode`).
package enum SecurityMode: String, Sendable, CaseIterable, Codable {
    /// Same format as READY state.
    case none
    /// A MAC field is present but the terminal does not check it (the SDK sends zeros).
    case signedNotChecked = "signed-not-checked"
    /// A real MAC is required (input) or present (output).
    case signed
    /// Data is encrypted and MACed.
    case signedCiphered = "signed-ciphered"
}

/// What the catalogue knows of one command: the single source for its id, names, security modes and timing.
package struct CommandDescriptor: Sendable, Hashable {
    package let id: CommandID
    /// The SDK-style name, e.g. "GetInfo".
    package let name: String
    /// The word on the command line and in the shell, e.g. "get-info".
    package let cliName: String
    /// One line for help, the man page and `rpc --list`.
    package let summary: String
    /// Security mode of the command's data in SECURED state (spec §2.3 table).
    package let inputMode: SecurityMode
    /// Security mode of the response's data in SECURED state (spec §2.3 table).
    package let outputMode: SecurityMode
    /// The terminal answers only when an event happens, a timeout expires or CancelAll arrives (spec §9).
    package let isLongRunning: Bool
    /// Terminal states in which the command is accepted; other states answer −287 (PROJECT CHOICE, spec §2.7).
    package let allowedStates: Set<TerminalState>
}

/// The terminal's state (GetInfo tag C4). PROJECT CHOICE values (spec §7.2): 0 PRE_PERSO, 1 PERSO, 2 READY, 3 SECURED.
package enum TerminalState: UInt8, Sendable, CaseIterable, Codable, CustomStringConvertible {
    case prePerso = 0x00
    case perso = 0x01
    case ready = 0x02
    case secured = 0x03

    package var description: String {
        switch self {
        case .prePerso: "PRE_PERSO"
        case .perso: "PERSO"
        case .ready: "READY"
        case .secured: "SECURED"
        }
    }
}
