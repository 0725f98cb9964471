import Foundation
import UCubeCrypto
import UCubeProtocol
import UCubeSupport

/// What the terminal holds in RAM only: lost when the simulator stops, as a real terminal loses it on power-off.
struct RuntimeState: Sendable {
    /// The card at a reader (inserted in the ICC reader or read on the NFC reader), until WaitCardRemoval.
    var cardPresent: CardProfile.Interface?
    /// The card's application transaction counter (9F36).
    var atc: UInt16 = 0
    /// The EMV transaction of the current secure session (cleared by Enter/ExitSecureSession, spec §5.2 0x5101).
    var transaction = CardTransaction()
    /// The PIN KSN issued in this secure session (one PIN counter step per session, SimulatorChoices).
    var pinKSNInSession: KSN?
    /// A binary being received by InstallForLoad + Load (discarded by a new InstallForLoad or the end of the link).
    var download: Download?
    /// `elapsed()` when the RTC was last set (or the simulator started).
    var clockSetAt: Duration = .zero
    /// Arrivals of each command id since the script was set (SimulatorFaults occurrences).
    var arrivals: [CommandID: Int] = [:]
    /// Frames of any command received since the script was set (`SimulatorFaults` frame positions).
    var framesReceived = 0
    /// An SVPP firmware was just installed: the connection ends after the answer and the terminal reboots.
    var rebootRequested = false
}

/// A binary announced by InstallForLoad and being received block by block (spec §5.2 0x5160/0x5161): a staging
/// that never holds the image — each block feeds the streaming signature verifier, and only the first
/// `FirmwareImageChoices.headerSize` bytes are kept for the header.
struct Download: Sendable {
    var method: EncryptionMethod
    let verifier: CodeSigning.Verifier
    var head: [UInt8] = []
    var received = 0
}

extension TerminalSimulator {
    /// The answer to an accepted command, by id; `nil` for an id the simulator does not implement (answered like an
    /// unknown command). Requests are read with the protocol layer's own command types (the simulator is a peer).
    func dispatch(_ request: Request) -> Outcome? {
        switch request.id {
        case .cancelAll:
            // The pending command's −32 follows this answer (`TerminalCore.ran`): the current SDK needs CancelAll's
            // own answer first (spec §2.8).
            return parsed(CancelAll.self, request) { _ in .now(.ok()) }
        case .getInfo: return parsed(GetInfo.self, request) { .now(getInfo($0)) }
        case .setInfoField: return parsed(SetInfoField.self, request) { .now(setInfoField($0)) }
        case .setInfoProd: return parsed(SetInfoProd.self, request) { _ in .now(.ok()) }
        case .enterSecureSession: return parsed(EnterSecureSession.self, request) { _ in .now(enterSecureSession()) }
        case .exitSecureSession: return parsed(ExitSecureSession.self, request) { _ in .now(exitSecureSession()) }
        case .powerOff: return parsed(PowerOff.self, request) { _ in .now(powerOff()) }
        case .rtcGet: return parsed(RTCGet.self, request) { _ in .now(rtcGet()) }
        case .rtcSet: return parsed(RTCSet.self, request) { .now(rtcSet($0)) }
        case .waitCard: return parsed(WaitCard.self, request) { waitCard($0) }
        case .waitCardRemoval:
            return parsed(WaitCardRemoval.self, request) { _ in
                runtime.cardPresent = nil  // the cardholder removes it at once (SimulatorChoices)
                return .now(.ok())
            }
        case .cardSendAPDU:
            return parsed(CardSendAPDU.self, request) { _ in .now(.ok(SimulatorChoices.apduSuccess)) }
        case .cardPowerOff: return parsed(CardPowerOff.self, request) { _ in .now(.ok()) }
        case .displayMessage: return parsed(DisplayMessage.self, request) { displayMessage($0) }
        case .displayListBox: return parsed(DisplayListBox.self, request) { displayListBox($0) }
        case .displayMessageWithKI: return parsed(DisplayMessageWithKI.self, request) { _ in .now(keyPress()) }
        case .displayMessageWithKICustom:
            return parsed(DisplayMessageWithKICustom.self, request) { _ in .now(keyPress()) }
        case .getKeyInfo: return parsed(GetKeyInfo.self, request) { _ in .now(.ok(SimulatorChoices.keyInfo)) }
        case .exportPublicKey:
            return parsed(ExportPublicKey.self, request) { _ in .now(.ok(SimulatorChoices.demoPublicKey)) }
        case .importPublicKeyCert: return parsed(ImportPublicKeyCert.self, request) { _ in .now(.ok()) }
        case .importPublicKeyPersoCert: return parsed(ImportPublicKeyPersoCert.self, request) { _ in .now(.ok()) }
        case .loadKey: return parsed(LoadKey.self, request) { _ in .now(.ok()) }
        case .installForLoadKey: return parsed(InstallForLoadKey.self, request) { _ in .now(installForLoadKey()) }
        case .installForLoad: return parsed(InstallForLoad.self, request) { .now(installForLoad($0)) }
        case .load: return parsed(Load.self, request) { .now(load($0)) }
        case .bankParametersDownload:
            return parsed(BankParametersDownload.self, request) {
                device.bankParameters = $0.payload
                persist()
                return .now(.ok())
            }
        case .bankParametersGet:
            return parsed(BankParametersGet.self, request) { _ in
                .now(.ok(RawDataResponse(data: device.bankParameters).encodeData()))
            }
        case .onlinePIN: return parsed(OnlinePIN.self, request) { _ in .now(onlinePIN(format: .iso0)) }
        case .simplifiedOnlinePIN: return simplifiedOnlinePIN(request)
        case .getPlainTag: return parsed(GetPlainTag.self, request) { .now(getPlainTag($0)) }
        case .getSecuredTag: return parsed(GetSecuredTag.self, request) { .now(getSecuredTag($0)) }
        case .buildCandidateList: return buildCandidateList(request)
        case .transactionInit: return transactionInit(request)
        case .transactionProcess: return transactionProcess(request)
        case .transactionFinalisation: return transactionFinalisation(request)
        case .nfcStartTransaction: return nfcStartTransaction(request)
        case .nfcCompleteTransaction: return nfcCompleteTransaction(request)
        default: return nil
        }
    }

    /// Reads the request with `C`'s own decoder; a payload that does not follow the layout answers −901.
    func parsed<C: RPCCommand>(_ type: C.Type, _ request: Request, _ body: (C) -> Outcome) -> Outcome {
        let command: C
        do {
            command = try C(payload: request.payload)
        } catch {
            return .now(Reply(SimulatorChoices.malformedRequestStatus))
        }
        return body(command)
    }

    // MARK: - Identification (0x5001, 0x5003)

    /// spec §5.2 0x5001: TLVs of the requested tags the terminal knows, in request order, each once.
    func getInfo(_ command: GetInfo) -> Reply {
        var seen = [Bool](repeating: false, count: 256)
        let tlvs = command.tags.filter { tag in
            defer { seen[Int(tag)] = true }
            return !seen[Int(tag)]
        }.compactMap(device.getInfoTLV)
        return .ok(DeviceInfo(tlvs: tlvs).encodeData())
    }

    /// spec §5.2 0x5003: C6, FC, F7 are checked, then all applied and persisted (SimulatorChoices).
    func setInfoField(_ command: SetInfoField) -> Reply {
        var next = device
        for field in command.fields {
            switch field.tag {
            case SetInfoField.powerOffTimeoutTag:
                guard field.value.count == 1 else { return Reply(SimulatorChoices.malformedRequestStatus) }
                let seconds = field.value[0]
                next.powerOffTimeout = seconds == 0 ? 0 : max(seconds, SimulatorChoices.minimumPowerOffTimeout)
            case SetInfoField.speedModeTag:
                guard field.value.count == 1, SpeedMode(rawValue: field.value[0]) != nil else {
                    return Reply(SimulatorChoices.malformedRequestStatus)
                }
                next.speedMode = field.value[0]
            case SetInfoField.localeTag:
                let code = String(decoding: field.value.filter { $0 != 0 }, as: UTF8.self)
                guard next.supportedLocales.contains(code) else {
                    return Reply(SimulatorChoices.unsupportedLocaleStatus)
                }
                next.locale = code
            default:
                continue  // tags not in sources (buzzer, …) are accepted and ignored
            }
        }
        if next != device {
            device = next
            persist()
        }
        return .ok()
    }

    // MARK: - States and sessions (0x5101, 0x5102, 0x5060)

    /// spec §5.2 0x5101, §9: READY → SECURED with the next data KSN; PERSO → READY; PRE_PERSO → PERSO.
    func enterSecureSession() -> Reply {
        switch device.terminalState {
        case .ready:
            guard let counter = KSN.nextCounter(after: device.dataCounter) else {
                return Reply(SimulatorChoices.keysExhaustedStatus)
            }
            device.dataCounter = counter
            device.terminalState = .secured
            runtime.transaction = CardTransaction()
            runtime.pinKSNInSession = nil
            persist()
            return .ok(EnterSecureSession.Response(ksn: device.dataKSN.bytes).encodeData())
        case .perso:
            device.terminalState = .ready
            persist()
            return .ok()
        case .prePerso:
            device.terminalState = .perso
            persist()
            return .ok()
        case .secured:
            return Reply(.badTerminalState)  // the catalogue already refuses it; kept for a complete switch
        }
    }

    /// spec §5.2 0x5102: SECURED → READY (READY stays READY); the transaction data is forgotten.
    func exitSecureSession() -> Reply {
        endSession()
        return .ok()
    }

    /// spec §9: the session ends and the card is taken away (SimulatorChoices).
    func powerOff() -> Reply {
        endSession()
        runtime.cardPresent = nil
        return .ok()
    }

    private func endSession() {
        runtime.transaction = CardTransaction()
        runtime.pinKSNInSession = nil
        guard device.terminalState == .secured else { return }
        device.terminalState = .ready
        persist()
    }

    // MARK: - Clock (0x0301, 0x0302)

    /// The terminal clock: the persisted setting plus the host's time since it was set (SimulatorChoices clock).
    func rtcGet() -> Reply {
        .ok(RTCGet.Response(dateTime: CivilTime.dateTime(secondsSince2000: terminalClock())).encodeData())
    }

    /// Seconds since 2000 on the terminal's clock now.
    func terminalClock() -> Int64 {
        if let setAt = device.clockSetAtHost { return device.clockSeconds + (CivilTime.hostSecondsSince2000() - setAt) }
        let running = elapsed() - runtime.clockSetAt
        return device.clockSeconds + running.components.seconds
    }

    func rtcSet(_ command: RTCSet) -> Reply {
        device.clockSeconds = CivilTime.secondsSince2000(command.dateTime)
        device.clockSetAtHost = CivilTime.hostSecondsSince2000()
        runtime.clockSetAt = elapsed()
        persist()
        return .ok()
    }

    // MARK: - Card readers (0x5020)

    /// spec §5.2 0x5020: the scripted card on the first enabled reader it supports, after the cardholder's delay;
    /// no card (or a card slower than the timeout) → −2 when the timeout expires.
    func waitCard(_ command: WaitCard) -> Outcome {
        let timeout = scaled(.seconds(Int(command.timeoutSeconds)))
        guard let card = script.card, let interface = card.interface(forReaders: command.readers.map(\.rawValue))
        else { return .after(timeout, Reply(.timeout)) }
        let delay = runtime.cardPresent == interface ? .zero : scaled(script.cardPresentationDelay)
        guard delay < timeout || delay == .zero else { return .after(timeout, Reply(.timeout)) }
        let response: WaitCard.Response
        switch interface {
        case .contact:
            response = WaitCard.Response(
                reader: .icc,
                iccStatus: SimulatorChoices.iccStatusPowered,
                atr: card.atr ?? seededATR()
            )
        case .contactless:
            response = WaitCard.Response(reader: .nfc)
        case .magstripe:
            response = WaitCard.Response(reader: .msr)
        }
        return .after(delay, Reply(.success, response.encodeData(), effects: [.cardPresented(interface)]))
    }

    /// `3B 68 00 00` + 8 seeded historical bytes (SimulatorChoices).
    func seededATR() -> [UInt8] {
        SimulatorChoices.seededATRPrefix + random.bytes(SimulatorChoices.seededATRHistoricalCount)
    }

    // MARK: - Displays (0x5040, 0x5042, 0x5043, 0x5045)

    /// spec §5.2 0x5040 PROJECT CHOICE: the next scripted key at once; else no data when the timeout expires.
    func displayMessage(_ command: DisplayMessage) -> Outcome {
        if !script.keys.isEmpty { return .now(keyPress()) }
        let timeout = scaled(.seconds(Int(command.timeoutSeconds)))
        return .after(timeout, .ok(DisplayMessage.Response(key: nil).encodeData()))
    }

    /// The next scripted key as one data byte, or no data.
    func keyPress() -> Reply {
        let key: UInt8? = script.keys.isEmpty ? nil : script.keys.removeFirst()
        return .ok(DisplayMessage.Response(key: key).encodeData())
    }

    /// spec §5.2 0x5042: the next scripted choice (1-based), else item 1; a choice of 0 is the cardholder aborting
    /// (−114); a negative choice is no choice at all: the list stays until its timeout, then −2 (SimulatorChoices).
    func displayListBox(_ command: DisplayListBox) -> Outcome {
        let choice = script.choices.isEmpty ? SimulatorChoices.defaultListChoice : script.choices.removeFirst()
        if choice < 0 { return .after(scaled(.seconds(Int(command.timeoutSeconds))), Reply(.timeout)) }
        guard choice > 0 else { return .now(Reply(.aborted)) }
        return .now(.ok(DisplayListBox.Response(selectedIndex: choice).encodeData()))
    }

    // MARK: - Downloads (0x5130, 0x5160, 0x5161)

    /// spec §5.2 0x5130: `LL LL` CA certificate `LL LL` KEK certificate (demonstration bytes, SimulatorChoices), then
    /// the initial KSNs of the data and PIN DUKPT keys, as current firmware answers (the 2020 SDK ignores them).
    func installForLoadKey() -> Reply {
        let response = Self.crypto {
            try InstallForLoadKey.Response(
                caCertificate: SimulatorChoices.demoCAProdCertificate,
                kekCertificate: SimulatorChoices.demoKEKCertificate(serial: device.serialNumber),
                initialDataKSN: CryptoChoices.initialKSNBytes,
                initialPINKSN: CryptoChoices.initialKSNBytes
            )
        }
        return .ok(response.encodeData())
    }

    /// spec §5.2 0x5160: starts a fresh staging (an earlier partial one is dropped). The signature is kept by the
    /// streaming verifier; blocks are verified as they arrive (SimulatorChoices "Downloads").
    func installForLoad(_ command: InstallForLoad) -> Reply {
        runtime.download = nil
        let verifier = Self.crypto { try CodeSigning.Verifier(signature: command.signature) }
        runtime.download = Download(method: command.method, verifier: verifier)
        return .ok()
    }

    /// spec §5.2 0x5161: each block feeds the verifier; the last one decides (FirmwareImageChoices): signature, then
    /// header and length, then version strictly newer than the installed one of the type → install and persist;
    /// an SVPP firmware then reboots the terminal (spec §9). Any refusal leaves the device unchanged.
    func load(_ command: Load) -> Reply {
        guard var download = runtime.download else { return Reply(SimulatorChoices.outOfOrderStatus) }
        Self.crypto { try download.verifier.update(command.block) }
        let missing = FirmwareImageChoices.headerSize - download.head.count
        if missing > 0 { download.head += command.block.prefix(missing) }
        download.received += command.block.count
        guard command.isLast else {
            runtime.download = download
            return .ok()
        }
        runtime.download = nil
        guard download.verifier.finish(), !script.faults.refuseImages else { return Reply(.imageSignatureInvalid) }
        let header: FirmwareImageHeader
        do {
            header = try FirmwareImageHeader(parsing: download.head)
            try header.checkSize(download.received)
        } catch {
            return Reply(.imageMalformed)
        }
        if let installed = device.installedVersion(of: header.type), header.version <= installed {
            return Reply(.imageNotNewer)
        }
        device.install(header.type, version: header.version)
        persist()
        lastInstalled = header
        if header.type.rebootsTerminal { runtime.rebootRequested = true }
        return .ok()
    }
}

/// The terminal clock's seconds since 2000-01-01 and its calendar fields (proleptic Gregorian, no time zone), through
/// `UTCTime`'s days-from-civil and civil-from-days arithmetic.
enum CivilTime {
    /// Seconds from 1970-01-01 to 2000-01-01.
    private static let epochTo2000: Int64 = 946_684_800

    /// The host's clock, in seconds since 2000-01-01 00:00:00 UTC.
    static func hostSecondsSince2000() -> Int64 { Int64(Date().timeIntervalSince1970) - epochTo2000 }

    static func secondsSince2000(_ time: RTCDateTime) -> Int64 {
        UTCTime.secondsSinceEpoch(
            year: time.year, month: time.month, day: time.day, hour: time.hour, minute: time.minute,
            second: time.second) - epochTo2000
    }

    static func dateTime(secondsSince2000 seconds: Int64) -> RTCDateTime {
        let time = UTCTime(secondsSinceEpoch: max(0, seconds) + epochTo2000)
        return RTCDateTime(
            year: time.year, month: time.month, day: time.day, hour: time.hour, minute: time.minute,
            second: time.second)
    }
}
