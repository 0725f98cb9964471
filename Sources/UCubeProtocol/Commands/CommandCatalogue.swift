/// The one table of commands (spec §5.1 ids and names, §2.3 security modes, §9 long-running commands, §2.9 the
/// current SDK's recovery commands).
///
/// The CLI's `rpc` words, the shell's completion, the simulator's dispatch, the man page and the decoders all read
/// this table. The allowed-state column is a PROJECT CHOICE (spec §2.7: "Commands valid only in another terminal
/// state should return −287"): payment, PIN and secured-tag commands need SECURED; key loading needs PERSO.
package enum CommandCatalogue {
    private static let any: Set<TerminalState> = Set(TerminalState.allCases)
    private static let operational: Set<TerminalState> = [.ready, .secured]
    private static let secured: Set<TerminalState> = [.secured]
    private static let ready: Set<TerminalState> = [.ready]
    private static let perso: Set<TerminalState> = [.prePerso, .perso]

    private static func entry(
        _ id: CommandID, _ name: String, _ cli: String, _ input: SecurityMode, _ output: SecurityMode,
        _ states: Set<TerminalState>, long: Bool = false, _ summary: String
    ) -> CommandDescriptor {
        CommandDescriptor(
            id: id, name: name, cliName: cli, summary: summary, inputMode: input, outputMode: output,
            isLongRunning: long, allowedStates: states)
    }

    /// Every command of spec §5.1, in id order.
    package static let all: [CommandDescriptor] = [
        entry(
            .cancelAll, "CancelAll", "cancel-all", .none, .none, any,
            "cancel all asynchronous processing; a pending command ends with -32"),
        entry(.rtcGet, "RTCGet", "rtc-get", .none, .none, operational, "read the terminal's real-time clock"),
        entry(.rtcSet, "RTCSet", "rtc-set", .none, .none, operational, "set the terminal's real-time clock"),
        entry(
            .repeatLastMessage, "RepeatLastMessage", "repeat-last-message", .none, .none, any,
            "ask the terminal to send its last answer again (with that answer's SEQ and command id)"),
        entry(
            .getStatus, "GetStatus", "get-status", .none, .none, any,
            "ask whether the terminal is busy with a process (served while a long command waits)"),
        entry(
            .getInfo, "GetInfo", "get-info", .signedNotChecked, .signedCiphered, any,
            "read terminal information tags (versions, serial, state, battery, ...)"),
        entry(.setInfoProd, "SetInfoProd", "set-info-prod", .none, .none, perso, "factory-only production info"),
        entry(
            .setInfoField, "SetInfoField", "set-info-field", .none, .none, operational,
            "set terminal fields (power-off timeout, speed mode, locale)"),
        entry(
            .waitCard, "WaitCard", "wait-card", .none, .none, operational, long: true,
            "wait for a card on the given readers"),
        entry(
            .waitCardRemoval, "WaitCardRemoval", "wait-card-removal", .none, .none, operational, long: true,
            "power the card off and wait for its removal"),
        entry(.cardSendAPDU, "CardSendAPDU", "card-send-apdu", .none, .none, operational, "send an APDU to the card"),
        entry(.cardPowerOff, "CardPowerOff", "card-power-off", .none, .none, operational, "power the card off"),
        entry(
            .magstripeRead, "MagstripeRead", "magstripe-read", .none, .none, operational, long: true,
            "read a magnetic stripe"),
        entry(
            .getSecuredTag, "GetSecuredTag", "get-secured-tag", .signedNotChecked, .signedCiphered, secured,
            "read SRED tags as an encrypted blob"),
        entry(
            .getPlainTag, "GetPlainTag", "get-plain-tag", .signedNotChecked, .signed, secured,
            "read plain payment tags"),
        entry(
            .displayMessage, "DisplayMessage", "display-message", .signedNotChecked, .signed, operational,
            long: true, "show text on the terminal's screen"),
        entry(
            .displayListBox, "DisplayListBox", "display-list-box", .signedNotChecked, .signed, operational,
            long: true, "show a list and return the chosen item (1-based)"),
        entry(
            .displayMessageWithKI, "DisplayMessageWithKI", "display-message-ki", .none, .none, operational,
            long: true, "show a YouTransactor-signed prompt with key input"),
        entry(
            .displayMessageWithKICustom, "DisplayMessageWithKICustom", "display-message-ki-custom", .none, .none,
            operational, long: true, "show a custom prompt with key input"),
        entry(.powerOff, "PowerOff", "power-off", .none, .none, any, "switch the terminal off"),
        entry(
            .enterSecureSession, "EnterSecureSession", "enter-secure-session", .none, .none,
            [.prePerso, .perso, .ready], "start a secure session; returns the SRED KSN"),
        entry(
            .exitSecureSession, "ExitSecureSession", "exit-secure-session", .none, .none, operational,
            "end the secure session"),
        entry(.getKeyInfo, "GetKeyInfo", "get-key-info", .none, .none, any, "describe the loaded keys"),
        entry(
            .exportPublicKey, "ExportPublicKey", "export-public-key", .none, .none, perso,
            "export the key-encryption public key"),
        entry(
            .importPublicKeyCert, "ImportPublicKeyCert", "import-public-key-cert", .none, .none, perso,
            "import a public key certificate"),
        entry(
            .importPublicKeyPersoCert, "ImportPublicKeyPersoCert", "import-public-key-perso-cert", .none, .none,
            perso, "import a personalisation public key certificate"),
        entry(
            .installForLoadKey, "InstallForLoadKey", "install-for-load-key", .none, .none, operational,
            "read the terminal certificate chain used by the TMS"),
        entry(.loadKey, "LoadKey", "load-key", .none, .none, perso, "load a TR-31 key block"),
        entry(
            .installForLoad, "InstallForLoad", "install-for-load", .signedNotChecked, .signed, ready,
            "announce a signed binary before Load blocks"),
        entry(.load, "Load", "load", .signedNotChecked, .signed, ready, "send one block of a binary"),
        entry(.onlinePIN, "OnlinePIN", "online-pin", .none, .none, secured, long: true, "online PIN entry"),
        entry(
            .simplifiedOnlinePIN, "SimplifiedOnlinePIN", "simplified-online-pin", .signedNotChecked, .signed,
            secured, long: true, "online PIN entry; returns the PIN KSN and encrypted PIN block"),
        entry(
            .bankParametersDownload, "BankParametersDownload", "bank-parameters-download", .signed, .signed,
            operational, "load HSM-signed EMV bank parameters"),
        entry(
            .bankParametersGet, "BankParametersGet", "bank-parameters-get", .none, .none, operational,
            "read the EMV bank parameters"),
        entry(
            .buildCandidateList, "BuildCandidateList", "build-candidate-list", .signedNotChecked, .signed, secured,
            "list the card's applications"),
        entry(
            .transactionInit, "TransactionInit", "transaction-init", .signedNotChecked, .signedCiphered, secured,
            "final selection, GPO and read records"),
        entry(
            .transactionProcess, "TransactionProcess", "transaction-process", .signedNotChecked, .signed, secured,
            long: true, "risk management, offline PIN and first GENERATE AC"),
        entry(
            .transactionFinalisation, "TransactionFinalisation", "transaction-finalisation", .signedNotChecked,
            .signed, secured, "second GENERATE AC after authorisation (status 7 approved, 8 declined)"),
        entry(
            .nfcStartTransaction, "NFCStartTransaction", "nfc-start", .signedNotChecked, .signed, secured,
            long: true, "single-entry-point card wait and contactless read"),
        entry(
            .nfcCompleteTransaction, "NFCCompleteTransaction", "nfc-complete", .signedNotChecked, .signed, secured,
            "complete a contactless transaction with the authorisation response"),
    ]

    private static let byCLIName: [String: CommandDescriptor] = Dictionary(
        uniqueKeysWithValues: all.map { ($0.cliName, $0) })

    /// The descriptor of a known id. A scan of `all` (about 40 two-byte comparisons) rather than a dictionary: building
    /// one at the first lookup cost every short command 72 k instructions (callgrind) and the pages it touched.
    package static func descriptor(for id: CommandID) -> CommandDescriptor? { all.first { $0.id == id } }

    /// The descriptor for a CLI word ("get-info") or an SDK name ("GetInfo", case-insensitive).
    package static func descriptor(named word: String) -> CommandDescriptor? {
        if let d = byCLIName[word] { return d }
        let lower = word.lowercased()
        return all.first { $0.name.lowercased() == lower }
    }

    /// Input and output modes; unknown commands are NONE/NONE (spec §2.3: "anything else").
    package static func modes(for id: CommandID) -> (input: SecurityMode, output: SecurityMode) {
        guard let d = descriptor(for: id) else { return (.none, .none) }
        return (d.inputMode, d.outputMode)
    }
}
