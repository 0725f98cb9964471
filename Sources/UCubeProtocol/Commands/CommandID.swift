/// A command identifier as it travels in a frame (spec §5.1). An open set: unknown ids still decode and print.
public struct CommandID: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    public static func < (lhs: CommandID, rhs: CommandID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// "0x5001 GetInfo" for a known id, "0x1234" otherwise.
    public var description: String {
        let hex = "0x" + Hex.encode([UInt8(rawValue >> 8), UInt8(rawValue & 0xFF)])
        if let d = CommandCatalogue.descriptor(for: self) { return "\(hex) \(d.name)" }
        return hex
    }

    public static let cancelAll = CommandID(0x0202)
    public static let rtcGet = CommandID(0x0301)
    public static let rtcSet = CommandID(0x0302)
    public static let repeatLastMessage = CommandID(0x0330)
    public static let getStatus = CommandID(0x0331)
    public static let getInfo = CommandID(0x5001)
    public static let setInfoProd = CommandID(0x5002)
    public static let setInfoField = CommandID(0x5003)
    public static let waitCard = CommandID(0x5020)
    public static let waitCardRemoval = CommandID(0x5021)
    public static let cardSendAPDU = CommandID(0x5022)
    public static let cardPowerOff = CommandID(0x5023)
    public static let magstripeRead = CommandID(0x5024)
    public static let getSecuredTag = CommandID(0x5025)
    public static let getPlainTag = CommandID(0x5026)
    public static let displayMessage = CommandID(0x5040)
    public static let displayListBox = CommandID(0x5042)
    public static let displayMessageWithKI = CommandID(0x5043)
    public static let displayMessageWithKICustom = CommandID(0x5045)
    public static let powerOff = CommandID(0x5060)
    public static let enterSecureSession = CommandID(0x5101)
    public static let exitSecureSession = CommandID(0x5102)
    public static let getKeyInfo = CommandID(0x5110)
    public static let exportPublicKey = CommandID(0x5120)
    public static let importPublicKeyCert = CommandID(0x5121)
    public static let importPublicKeyPersoCert = CommandID(0x5122)
    public static let installForLoadKey = CommandID(0x5130)
    public static let loadKey = CommandID(0x5131)
    public static let installForLoad = CommandID(0x5160)
    public static let load = CommandID(0x5161)
    public static let onlinePIN = CommandID(0x5170)
    public static let simplifiedOnlinePIN = CommandID(0x5171)
    public static let bankParametersDownload = CommandID(0x5501)
    public static let bankParametersGet = CommandID(0x5503)
    public static let buildCandidateList = CommandID(0x5510)
    public static let transactionInit = CommandID(0x5511)
    public static let transactionProcess = CommandID(0x5512)
    public static let transactionFinalisation = CommandID(0x5513)
    public static let nfcStartTransaction = CommandID(0x5530)
    public static let nfcCompleteTransaction = CommandID(0x5531)
    /// Response only: "unable to recognize command" (spec §2.7).
    public static let unrecognised = CommandID(0x8000)
}

/// How a command's data is protected in SECURED state (spec §2.3, newer SDK's `SecurityMode`).
public enum SecurityMode: String, Sendable, CaseIterable, Codable {
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
public struct CommandDescriptor: Sendable, Hashable {
    public let id: CommandID
    /// The SDK-style name, e.g. "GetInfo".
    public let name: String
    /// The word on the command line and in the shell, e.g. "get-info".
    public let cliName: String
    /// One line for help, the man page and `rpc --list`.
    public let summary: String
    /// Security mode of the command's data in SECURED state (spec §2.3 table).
    public let inputMode: SecurityMode
    /// Security mode of the response's data in SECURED state (spec §2.3 table).
    public let outputMode: SecurityMode
    /// The terminal answers only when an event happens, a timeout expires or CancelAll arrives (spec §9).
    public let isLongRunning: Bool
    /// Terminal states in which the command is accepted; other states answer −287 (PROJECT CHOICE, spec §2.7).
    public let allowedStates: Set<TerminalState>
}

/// The terminal's state (GetInfo tag C4). PROJECT CHOICE values (spec §7.2): 0 PRE_PERSO, 1 PERSO, 2 READY, 3 SECURED.
public enum TerminalState: UInt8, Sendable, CaseIterable, Codable, CustomStringConvertible {
    case prePerso = 0x00
    case perso = 0x01
    case ready = 0x02
    case secured = 0x03

    public var description: String {
        switch self {
        case .prePerso: "PRE_PERSO"
        case .perso: "PERSO"
        case .ready: "READY"
        case .secured: "SECURED"
        }
    }
}
