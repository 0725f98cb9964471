import UCubeCrypto
import UCubeProtocol

/// Every PROJECT CHOICE the simulator makes, in one place, each naming the spec section that leaves it open
/// (spec = docs/protocol.md). The protocol-wide choices (C4 values, security-mode table, SRED/MAC
/// algorithms, the CD record, F6/F7 tags, the RTC layout) live in `UCubeProtocol` / `UCubeCrypto`; what is here is how
/// *this terminal* behaves where the sources are silent. The constants below are read by the simulator; the
/// behaviour choices that are code paths rather than values are listed here and implemented where noted.
///
/// Behaviour choices:
/// - §2.4: every response echoes the SEQ of the command it answers (errors, −32 and unknown-command answers included).
/// - §2.2: a frame with a bad CRC, a missing ETX or an oversize LEN is dropped without an answer; the decoder
///   resynchronises on the next STX and the next good frame is answered (`TerminalSimulator.serve`).
/// - §2.3: in SECURED state a command is read wrapped iff its input mode ≠ NONE and its body is non-empty (plus the
///   legacy rule below); the answer is secured iff the output mode ≠ NONE, errors included; 0x5102 is always plain.
///   A secured answer's crypto header is a seeded byte; its MAC is present only when DATA is non-empty
///   (`TerminalCore.received`).
/// - §3.4: `SimulatorServer` serves one TCP connection at a time. A second client is accepted by the kernel and
///   waits, unread, until the first disconnects (nothing is refused). The device state survives connections.
/// - §3.4: what a host queues is bounded, and the bound reaches its socket: the server stops reading a connection
///   while `receiveHighWater` bytes wait for the terminal, and the terminal stops reading while `maxQueuedAnswers`
///   answers wait to be written. A host that sends more than `maxNoiseBytes` without one valid frame
///   (`ConnectionEnd.refused`), or leaves its answers unread until the socket's buffers and NIO's write buffer are full
///   (`SimulatorServer`), is dropped, and the reason is reported (`simulate` prints it on stderr).
/// - §9: long-running commands (catalogue `isLongRunning`) do not block reading. While one is pending only CancelAll,
///   GetStatus and RepeatLastMessage are served (`servedWhilePending`); anything else is answered `busyStatus` at once
///   and the pending command keeps waiting. CancelAll ends it: CancelAll's 0 is written first, then the pending
///   command's −32 (§2.8). When the connection ends, a pending command is dropped without an answer (`TerminalCore`).
/// - §2.9: GetStatus answers 0 and one byte, `busyProcessState` while a command is pending, else 00. RepeatLastMessage
///   sends again, byte for byte, the last answer of this connection to anything but GetStatus and RepeatLastMessage;
///   while a command is pending it sends nothing (that command's answer is still to come, with its SEQ and id); with
///   no answer yet on the connection it is answered 0 under its own id (`TerminalCore`).
/// - §2.8: every answer leaves no sooner than `SimulatorConfiguration.minimumAnswerDelay` after the last command frame
///   arrived (0 by default, `vendorAppMinimumAnswerDelay` for `ucube simulate --vendor-app`).
/// - §2.2: command frames up to 2560 bytes are read; §2.3: any crypto header byte is accepted; a wrapped command with
///   an empty payload (LEN = 5) is read as empty.
/// - §5.2 0x5101: READY → SECURED advances the data DUKPT counter to the next valid X9.24 value and answers the SRED
///   KSN (a fresh terminal answers FFFF9876543210E00001). PERSO → READY and PRE_PERSO → PERSO answer no data (there is
///   no session, so no KSN). Entering or leaving a session forgets the transaction data.
/// - §5.2 0x5020 / 0x5530: the scripted card is presented after `SimulatorScript.cardPresentationDelay` on the card's
///   preferred interface among the enabled readers (the default card is inserted when ICC is enabled, tapped when NFC
///   is the only reader). No card, or a card slower than the timeout, answers −2 when the timeout expires.
/// - §5.2 0x5021: the cardholder removes the card at once: WaitCardRemoval answers 0 immediately.
/// - §5.2 0x5040: a display answers the script's next key at once (1 data byte), else no data when its timeout
///   expires; timeout 0 answers at once. 0x5043/0x5045 (layouts not in sources) answer the next key or nothing at once.
/// - §5.2 0x5042: a list box answers the script's next choice, else `defaultListChoice`; a scripted choice of 0 is
///   the cardholder aborting (−114). A negative scripted choice is a cardholder who chooses nothing: the list stays
///   until its timeout and answers −2 (TIMEOUT), as WaitCard does (what a real list box answers on its timeout is
///   not in sources; PROJECT CHOICE). CancelAll ends it earlier with −32, as any pending display.
/// - §5.2 0x5160/0x5161 (image format and signature: `FirmwareImageChoices`): InstallForLoad starts a fresh
///   staging (dropping any partial one); each Load block feeds a streaming ECDSA P-256/SHA-256 verifier under the
///   test code-signing key (`CryptoChoices.testCodeSigningPublicKeyPEM`) and only the 13 header bytes are kept. The
///   last block decides, in this order: signature (−910), header and length (−911), version strictly newer than the
///   installed one of that type (−912); only then is the version installed (type 0 → D1, 3 → E8/D1, 4 → EA, 5 → EB,
///   6 and 8 → `DeviceState.itemVersions`) and `device.json` written. Any refusal leaves the device unchanged. The
///   encryption method is not acted on: blocks are verified as received (the simulator has no session-key scheme).
///   A link that drops mid-load discards the staging. A Load without InstallForLoad answers `outOfOrderStatus`.
/// - §9 reboot: after installing an SVPP firmware (type 0) the last Load is answered 0, then the terminal ends the
///   connection (`ConnectionEnd.rebooted`), loses its RAM (SECURED → READY) and serves no connection for
///   `rebootDuration` × `timeScale`; `serve` of the next connection waits for the reboot to finish.
/// - §5.2 0x5171 (MP-README on 0x5170): the PIN DUKPT counter advances on the first PIN command of a secure session
///   only; later PIN commands of the session reuse that KSN. OnlinePIN (0x5170, layout not in sources) answers like
///   SimplifiedOnlinePIN in ISO format 0. ISO format 4 (AES only) is a malformed request. A request that names a key
///   slot (DF44, the current dialect) is answered `LL LL KSN LL LL block`, one without it the 2020 TLVs DF3E/DF3F;
///   the key slot itself selects nothing (the simulator holds one PIN key). A current-dialect TransactionProcess
///   after an online PIN answers DF3E and DF3F unasked (`onlinePINTags`).
/// - §5.2 0x5025/0x5026: SRED tags (`sredTags`) are never answered in clear (GetPlainTag, TransactionProcess,
///   Finalisation, StartNFC, CompleteNFC); GetSecuredTag and the ciphered TransactionInit may carry them. A single
///   requested tag is answered as its bare value, several as TLVs; unknown tags are left out.
/// - §5.2 0x5026 PROJECT CHOICE (truncated PAN): GetPlainTag of 5A answers the PAN *truncated*, not left out: the
///   first 6 and last 4 digits kept, every digit between them replaced by the nibble F, F-padded as 5A is
///   (4761739001010010 → 47 61 73 FF FF FF 00 10; `truncatedPAN`). The driver can show a masked PAN; nobody gets
///   the clear PAN outside an SRED blob. Only GetPlainTag does this; other plain answers leave 5A out.
/// - §5.2 0x5025 / §12.3: the card holds 56, 57, 5A, 5F20, 5F24, 5F30 on every interface; 9F6B (track 2 data) only
///   when read contactlessly; DF62 only when swiped (`magstripeCardData`); 9F0B never (no extended name). They come
///   back only in GetSecuredTag's SRED blob (data-response key of the current SRED KSN) or the ciphered
///   TransactionInit answer.
/// - §5.2 0x5020 / 0x5530 / §7.4 (original uCube): a card with the magstripe interface is swiped when the MSR reader
///   (0x41) is enabled: WaitCard answers 41, StartNFC answers DF70 41. GetPlainTag then knows DF60 (the card's MSR
///   action) and DF61 (BIN, first 6 PAN digits); DF62 is secured. MagstripeRead (0x5024) stays unknown.
/// - §5.2 0x5512: the card's cardholder verification runs inside TransactionProcess: 9F34 (CVM results,
///   `cvmResults…`) is known afterwards (answered when requested); an online PIN sets TVR byte 3 bit 3 ("online PIN
///   entered") and makes the enciphered PIN block available as DF3E (PIN KSN), DF3F and 99; a later
///   SimplifiedOnlinePIN of the same session answers under the same PIN KSN. An offline PIN is always verified.
///   A card with `refusesTransaction` answers −301. A contactless read sets 9F34 from the DF72 CVM byte.
/// - §12.4: 9F26 is a real EMV cryptogram (`CardCryptogram`, on UCubeCrypto's `EMVApplicationCryptogram`): each
///   card's ICC master key is derived from `CryptoChoices.testIssuerMasterKey` and its PAN and PSN; TransactionProcess,
///   a contactless read and TransactionFinalisation MAC the data the terminal reports. TransactionFinalisation checks
///   a 91 (ARPC method 1): one that does not verify declines whatever 8A says; without 91, 8A decides. 9F10's Visa CVR
///   byte 2 tells the cryptograms answered and an issuer-authentication failure. No cryptogram draws on the seeded
///   generator: the transcripts of one seed stay the same.
/// - Faults (`SimulatorFaults`): arrivals of each command id are counted from when the script was set; at the chosen
///   arrival of `disconnectAt` the terminal stops reading and answering (the command is not answered, a pending
///   command is dropped) and `serve` returns `.disconnected`; the device state (SECURED included) and the card
///   stay as they were, as when a BLE link drops. At the chosen arrival of `cardRemovedAt` the card leaves the reader
///   before the command is handled; contact commands then answer `cardRemovedStatus` (−35 NO_CARD, §6). By position:
///   frames of any command are counted too, and `disconnectAtFrame` drops the link as `disconnectAt` does, while
///   `silentFromFrame` leaves that frame and the rest of its connection unanswered (a hung terminal; the next
///   connection is answered), and `rebootAtFrame` reboots the terminal on it (unanswered). Each fault fires once.
/// - §9: PowerOff answers 0, ends any secure session (SECURED → READY: session keys live in RAM) and takes the card
///   away; the simulated terminal stays reachable, as a BLE connection powers the Touch on.
/// - §5.2 0x0301/0x0302: a new terminal's clock is the host's; RTCSet moves it, and it runs on with the host's clock
///   from there, across processes (the value set and the host's time then are persisted). A state saved by an older
///   simulator at the fixed default `DefaultDevice.clockSeconds` follows the host too.
/// - §7.2: a new terminal is `initialState`; the state is persisted after every change (SECURED too: a real terminal
///   outlives the host process).
package enum SimulatorChoices {
    // MARK: Framing and dispatch

    /// §2.7, §2.8: an unknown command id is answered with the command's own CMD, status −1, no data (plain, even in
    /// SECURED state, since unknown commands are NONE/NONE, §2.3 "anything else"). The current SDK matches an answer
    /// by SEQ and CMD, and a 0x8000 answer left its command waiting for ever; the driver reads either.
    static let unknownCommandStatus = Status.unknownCommand

    /// §2.3 legacy switch (`SimulatorConfiguration.legacySecuredCommands`): in SECURED state a NONE-mode command with a
    /// non-empty body is read as wrapped when the body is longer than crypto header + MAC and ends with the old SDK's
    /// all-zero MAC (§2.3 "MAC always zero", §13); otherwise it is read as plain. Its MAC is not checked.
    static let legacyWrappedMAC: [UInt8] = [0, 0, 0, 0]

    /// §3.4: raw RPC frames (no BLE stuffing) over TCP, default port 5000.
    package static let defaultTCPPort = 5000

    /// §3.4: the current SDK's `SOCKET` connection type connects to port 21350 by default (`ucube simulate
    /// --vendor-app` listens there, on the loopback interface).
    package static let vendorSDKSocketPort = 21350

    /// §2.8 PROJECT CHOICE: in vendor-app mode an answer leaves no sooner than 50 ms after the command's last byte.
    package static let vendorAppMinimumAnswerDelay: Duration = .milliseconds(50)

    /// §2.2: command frames up to the current SDK's 2560-byte `MAX_RPC_PACKET_SIZE` are read (the answers the
    /// simulator writes stay within 2068 bytes, the 2020 SDK's limit).
    static let maxCommandFrameSize = FrameLimits.currentSDKMaxFrameSize

    /// §3.4: the bytes of a connection read and waiting for the terminal before the server stops reading it: a
    /// hundred of the largest command frames.
    package static let receiveHighWater = 256 * 1024

    /// §3.4: answers waiting to be written before the terminal stops reading commands (a host sends one command at a
    /// time and reads its answer; the SDK pipelines none).
    package static let maxQueuedAnswers = 64

    /// §2.2: the bytes that are not a valid frame (before an STX, or rejected) the terminal takes after the last valid
    /// frame before it drops the host: 1 MiB, four hundred of the largest frames.
    package static let maxNoiseBytes = 1024 * 1024

    /// §2.8, §2.9: what is served while a long-running command is pending; anything else answers `busyStatus`.
    static let servedWhilePending: [CommandID] = [.cancelAll, .getStatus, .repeatLastMessage]

    /// §2.9: GetStatus's process state while a long-running command is pending (card waits, displays and PIN entry
    /// run in the secure firmware): 01. Idle: 00.
    static let busyProcessState = GetStatus.Response.secureFirmwareBusy

    // MARK: Statuses the sources do not name (simulator range −900…−999)

    /// §12.3: a SIGNED input (0x5501) whose MAC-request-variant retail MAC does not verify.
    package static let macMismatchStatus = Status(-900)
    /// §5.2: a request payload that does not follow its command's layout (bad TLV, wrong length, secured body too
    /// short for crypto header + MAC, an unsupported PIN block format, an unknown FC speed-mode value).
    package static let malformedRequestStatus = Status(-901)
    /// §5.2 "Locale commands": SetInfoField F7 with a locale that is not in the F6 supported list.
    package static let unsupportedLocaleStatus = Status(-902)

    /// §9 + §2.7: the answer to anything but CancelAll while a long-running command is pending: −287.
    static let busyStatus = Status.badTerminalState

    /// §5.2 0x0202: what a pending command answers when CancelAll ends it (CancelAll itself answers 0, even when
    /// nothing is pending).
    static let cancelledStatus = Status.cancelled

    /// Payment commands out of EMV order (TransactionProcess before TransactionInit, Finalisation without an ARQC,
    /// NFCComplete without a contactless read, Load without InstallForLoad) → −287 BAD_TERMINAL_STATE (§2.7).
    static let outOfOrderStatus = Status.badTerminalState

    /// Contact payment commands (0x5510–0x5513) without a card in the ICC reader, and a PIN in format 0/3 without a
    /// card PAN → −35 NO_CARD (§6).
    static let noCardStatus = Status.noCard

    /// §5.2 0x5511: TransactionInit for an AID the card does not have → −300 EMV_NOT_SUPPORTED (the driver drops the
    /// AID and selects again).
    static let unknownAIDStatus = Status.emvNotSupported

    // MARK: Terminal states and sessions

    /// §7.2: the state of a new simulated terminal.
    static let initialState = TerminalState.ready

    /// §9 / §12.1: when the data DUKPT counter cannot advance any more (past 0x1FF800), EnterSecureSession answers
    /// −287 BAD_TERMINAL_STATE: the terminal needs new keys (RKI) before another session. Same for the PIN counter.
    static let keysExhaustedStatus = Status.badTerminalState

    // MARK: Cardholder and card

    /// §5.2 0x5020: the ICC status byte in the WaitCard answer ("card powered, ATR received"; values not in sources).
    static let iccStatusPowered: UInt8 = 0x00
    /// §5.2 0x5020: a card without a fixed ATR answers `3B 68 00 00` (direct convention, TB1 = TC1 = 0, 8 historical
    /// bytes) followed by 8 seeded historical bytes.
    static let seededATRPrefix: [UInt8] = [0x3B, 0x68, 0x00, 0x00]
    static let seededATRHistoricalCount = 8

    /// Reader ids (§7.3).
    static let iccReader: UInt8 = 0x11
    static let nfcReader: UInt8 = 0x21
    static let msrReader: UInt8 = 0x41

    /// §6: what a contact command answers once the card was pulled out (`SimulatorFaults.cardRemovedAt`): −35 NO_CARD.
    /// The SDK ends such a payment with ERROR (§8.1 "any task/command failure").
    package static let cardRemovedStatus = Status.noCard

    /// §5.2 0x5026 PROJECT CHOICE: PAN digits kept in clear at the start and end of the truncated 5A.
    package static let truncatedPANLeadingDigits = 6
    package static let truncatedPANTrailingDigits = 4

    /// `bcd` (a 5A value) with every digit between the first 6 and the last 4 replaced by the nibble F
    /// (47 61 73 90 01 01 00 10 → 47 61 73 FF FF FF 00 10). PANs shorter than 11 digits are truncated entirely.
    package static func truncatedPAN(_ bcd: [UInt8]) -> [UInt8] {
        var nibbles = bcd.flatMap { [$0 >> 4, $0 & 0x0F] }
        let digits = nibbles.prefix { $0 <= 9 }.count
        let keepEnd = digits - truncatedPANTrailingDigits
        for index in 0..<digits
        where digits <= truncatedPANLeadingDigits + truncatedPANTrailingDigits
            || (index >= truncatedPANLeadingDigits && index < keepEnd)
        {
            nibbles[index] = 0xF
        }
        return stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
    }

    /// §7.3: 9F39 POS entry mode of a swipe.
    static let magstripeEntryMode: UInt8 = 0x02

    /// §7.4: DF61, the MSR BIN, is the first 6 PAN digits (BCD), in plain.
    static let msrBINDigits = 6

    /// §7.4 DF62 PROJECT CHOICE (layout not in sources): the swiped card data block is the TLVs `56` track 1 and `57`
    /// track 2 equivalent data of the card, only ever answered inside an SRED blob.
    static let magstripeCardDataTags: [UInt32] = [0x56, 0x57]

    /// 9F34 CVM results (EMV Book 3 C.4): method, condition 03 ("if terminal supports the CVM"), result.
    static let cvmResultsNoCVM: [UInt8] = [0x1F, 0x03, 0x02]
    static let cvmResultsSignature: [UInt8] = [0x1E, 0x03, 0x00]
    static let cvmResultsOfflinePIN: [UInt8] = [0x01, 0x03, 0x02]
    static let cvmResultsOnlinePIN: [UInt8] = [0x42, 0x03, 0x00]

    /// §5.2 0x5512: the tags a current-dialect TransactionProcess answer carries after an online PIN, requested or
    /// not: DF3E the PIN KSN, DF3F the enciphered PIN block (the SDK's contact flow reads them there).
    static let onlinePINTags: [UInt32] = [0xDF3E, 0xDF3F]

    /// TVR byte 3 bit 3 (EMV Book 3 C.5): "online PIN entered".
    static let tvrOnlinePINEnteredByte = 2
    static let tvrOnlinePINEnteredMask: UInt8 = 0x04

    /// §5.2 0x5042: a list box without a scripted choice answers item 1.
    package static let defaultListChoice = 1

    /// §5.2 0x5171: the PIN the cardholder types when the script does not say.
    package static let defaultPIN = "1234"

    /// §5.1: the uCube Touch has no magnetic-stripe reader (§1), so MagstripeRead (0x5024) is answered like an unknown
    /// command (its own CMD, −1).
    static let hasMagstripeReader = false

    /// Discretionary data in the track 2 / track 1 equivalents of the simulated cards.
    static let track2Discretionary = "0000000000"

    // MARK: EMV answers (§5.2 0x5510–0x5531)

    /// 0x5171: a scripted PIN that is not 4–12 digits is answered −2 TIMEOUT, as if the cardholder never finished.
    static let invalidScriptedPINStatus = Status.timeout

    /// 0x5512 / 0x5513: tags every TransactionProcess and TransactionFinalisation answer carries, in this order,
    /// before any other requested tag: CID, AC, IAD, ATC, TVR, TSI.
    static let generateACTags: [UInt32] = [0x9F27, 0x9F26, 0x9F10, 0x9F36, 0x95, 0x9B]

    /// 0x5512: the TSI after the first GENERATE AC (offline data authentication, cardholder verification, card and
    /// terminal risk management performed).
    static let defaultTSI: [UInt8] = [0xE8, 0x00]

    /// 0x5513: status 7 (TC) when 8A is "00" (§7.7 "the only value the old SDK treats as approved"), 8 (AAC) otherwise
    /// (and whatever 8A says when a 91 does not verify, §12.4).
    static let approvedARC: [UInt8] = [0x30, 0x30]

    /// 0x5531: DF72 after CompleteNFC: `30 36` (approved) when DF73 is "00", `30 37` (declined) otherwise.
    static let nfcApprovedOutcome: [UInt8] = [0x30, 0x36]
    static let nfcDeclinedOutcome: [UInt8] = [0x30, 0x37]

    /// SRED tags (§5.2 0x5025): never in a plain answer, only in GetSecuredTag's blob or a ciphered answer.
    static let sredTags: Set<UInt32> = [0x56, 0x57, 0x5A, 0x5F20, 0x5F24, 0x5F30, 0x9F0B, 0x9F6B, 0xDF62, 0xDF5A]

    /// Terminal data objects the simulated terminal holds (EMV Book 4): country 0250 (France), type 22 (attended,
    /// offline with online capability, merchant), capabilities E0F8C8 (plain/enciphered PIN, signature, SDA/DDA/CDA).
    static let terminalData: [UInt32: [UInt8]] = [
        0x9F1A: [0x02, 0x50],
        0x9F35: [0x22],
        0x9F33: [0xE0, 0xF8, 0xC8],
        0x9F40: [0x60, 0x00, 0xF0, 0xA0, 0x01],
        0x9F1E: Array("SIM00001".utf8),
    ]

    // MARK: Keys and downloads (§5.2 0x5110–0x5161)

    /// 0x5130: fixed demonstration certificate chain `LL LL` CA-prod certificate `LL LL` KEK certificate; the bytes are
    /// opaque labels, not X.509 (the real chain is signed by YouTransactor).
    package static let demoCAProdCertificate: [UInt8] = Array("UCUBE-SIM DEMO CA-PROD CERTIFICATE v1".utf8)
    package static func demoKEKCertificate(serial: UInt64) -> [UInt8] {
        Array("UCUBE-SIM DEMO K_KEK CERTIFICATE v1 SN ".utf8) + Array(String(serial).utf8)
    }

    /// 0x5110 GetKeyInfo answers the key descriptors of GetInfo CD (§12.2); 0x5120 ExportPublicKey answers a fixed
    /// demonstration key label. Key-loading commands (0x5121, 0x5122, 0x5131) and SetInfoProd (0x5002) answer 0.
    static let keyInfo: [UInt8] = CryptoChoices.ksnFormatRecord
    static let demoPublicKey: [UInt8] = Array("UCUBE-SIM DEMO K_KEK_PUB".utf8)

    /// §9: how long the terminal takes to reboot after an SVPP firmware install (scaled by `timeScale`). The SDK polls
    /// every 5 s for up to 60 s (F-sil `waitReboot`); 8 s fits that.
    package static let rebootDuration: Duration = .seconds(8)

    /// 0x5022 CardSendAPDU answers the status word 90 00 without response data.
    static let apduSuccess: [UInt8] = [0x90, 0x00]

    // MARK: SetInfoField (§5.2 0x5003)

    /// C6 follows the SDK clamp: 0 = never, 1…31 stored as 32, 32…255 as sent. FC must be 0 or 1. F7 must be in F6.
    /// Other tags (buzzer, …: tag numbers not in sources) are accepted and ignored. Either every field applies or none.
    static let minimumPowerOffTimeout: UInt8 = 32

    // MARK: Default device (§4, §7.1)

    /// The profile of a new simulated terminal.
    package enum DefaultDevice {
        /// §4: printed 202401001; C3 carries 202401001 × 4 = 809604004 = 00 30 41 93 A4.
        package static let serialNumber: UInt64 = 202_401_001
        /// §4 / §13: the 2020 SDK swaps C2 and C3 unless the part number contains "UCUBE"; the current SDK unless it
        /// starts with "uCubeT" (vendor SDK's DeviceInfos). "uCubeTouchUCUBE" (15 bytes, the C2 length) satisfies
        /// both, so every SDK, and ucube, reads serial and part number the right way round.
        package static let partNumber = "uCubeTouchUCUBE"
        /// The part number of simulators before the current SDK was known; a saved `device.json` that holds it is
        /// read with `partNumber` instead (the current SDK would swap it).
        package static let legacyPartNumbers: Set<String> = ["UCUBE-TOUCH-EU"]
        package static let atmelSerial: [UInt8] = [0x5A, 0x17, 0x00, 0x20, 0x24, 0x01, 0x00, 0x01]
        /// §3.1: 6.0.0.54 is the first firmware with the FC speed mode.
        package static let firmwareVersion = FirmwareVersion([6, 0, 0, 54])
        package static let nfcFirmwareVersion = FirmwareVersion([1, 4, 2, 7])
        package static let nfcEMVL1Version = FirmwareVersion([4, 3, 0, 1])
        package static let nfcEMVL2Version = FirmwareVersion([2, 6, 0, 0])
        package static let nfcFirmwareState: UInt8 = 0x01
        package static let pciPEDVersion = FirmwareVersion([5, 1, 0, 0])
        package static let emvL1Version = FirmwareVersion([4, 3, 0, 0])
        package static let emvL2Version = FirmwareVersion([4, 3, 1, 0])
        package static let bootLoaderVersion = FirmwareVersion([1, 2, 0, 3])
        package static let osVersion = FirmwareVersion([2, 3, 0, 1])
        package static let nonSecureFirmwareVersion = FirmwareVersion([1, 0, 3, 0])
        package static let iccConfigVersion = FirmwareVersion([1, 0, 0, 5])
        package static let nfcConfigVersion = FirmwareVersion([1, 0, 0, 4])
        /// §7.1 C5 PROJECT CHOICE: percent.
        package static let batteryPercent: UInt8 = 87
        package static let charging: UInt8 = 0x00
        package static let speedMode: UInt8 = 0
        package static let powerOffTimeout: UInt8 = 60
        /// §5.2 "Locale commands" PROJECT CHOICE: F7 current locale, F6 supported list "en\0fr\0de\0es\0it\0".
        package static let locale = "en"
        package static let supportedLocales = ["en", "fr", "de", "es", "it"]
        /// §7.1 ED: 3 = NFC module ready.
        package static let nfcModuleState: UInt8 = 3
        /// §7.1 DB: BEA704B46856 = "DEV KEY" (the simulator holds the public X9.24 test BDK, §12.3).
        package static let kslID: [UInt8] = [0xBE, 0xA7, 0x04, 0xB4, 0x68, 0x56]
        /// 2025-01-01 00:00:00 in seconds since 2000-01-01 (9132 days).
        package static let clockSeconds: Int64 = 9132 * 86_400
    }

    /// §4: C2 is 15 ASCII bytes.
    static let partNumberLength = 15

    /// The seed of `SimulatorConfiguration()` when none is given.
    package static let defaultSeed: UInt64 = 0x7563_7562_6553_494D
}
