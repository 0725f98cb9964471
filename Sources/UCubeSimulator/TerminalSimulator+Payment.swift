import UCubeCrypto
import UCubeProtocol

/// The EMV transaction of the current secure session: how far it got and the data objects it produced.
struct CardTransaction: Sendable {
    /// Where the transaction stands (spec §8.1 states, as the terminal sees them).
    enum Stage: Sendable, Equatable {
        /// Nothing yet in this session.
        case idle
        /// BuildCandidateList answered.
        case candidatesListed
        /// TransactionInit selected an application; the card's records are read.
        case initialised
        /// TransactionProcess ran the first GENERATE AC with this answer.
        case processed(CryptogramType)
        /// TransactionFinalisation ran the second GENERATE AC.
        case finalised
        /// NFCStartTransaction read the card contactlessly with this DF72 outcome.
        case contactlessRead(NFCOutcome)
        /// NFCCompleteTransaction ended the contactless transaction.
        case contactlessCompleted
        /// NFCStartTransaction read a swiped magnetic stripe.
        case swiped
    }

    var stage: Stage = .idle
    /// The interface NFCStartTransaction read the card on (`nil`: the reader the card is at, if any).
    var interface: CardProfile.Interface?
    /// The application TransactionInit selected (or the contactless read used).
    var application: CardProfile.Application?
    /// Data objects of this transaction: what the host sent (amount, currency, dates, TVR) and what the card and
    /// terminal produced (cryptograms, ATC, TSI, unpredictable number, outcome).
    var data: [UInt32: [UInt8]] = [:]
}

extension TerminalSimulator {
    // MARK: - Data objects

    /// The value of `tag` as the terminal knows it: the transaction's data first, then the card's data (when a card is
    /// at a reader), then the terminal's own data objects and clock.
    func dataObject(_ tag: UInt32, _ transaction: CardTransaction, cardAtReader: Bool) -> [UInt8]? {
        if cardAtReader, let card = script.card {
            if card.omittedTags.contains(tag) { return nil }
            if let value = card.tagOverrides[tag] { return value }
        }
        if let value = transaction.data[tag] { return value }
        if cardAtReader, let card = script.card, let value = cardObject(tag, card, transaction) { return value }
        if let value = SimulatorChoices.terminalData[tag] { return value }
        switch tag {
        case 0x9A: return today().date
        case 0x9F21: return today().time
        // DF3E, the PIN KSN (IS:Constants): the PIN key of this transaction once a PIN was taken, else the
        // current PIN KSN. Reading it never advances the PIN counter (spec §12.1: only the first PIN does).
        case 0xDF3E: return (runtime.pinKSNInSession ?? device.pinKSN).bytes
        default: return nil
        }
    }

    private func cardObject(_ tag: UInt32, _ card: CardProfile, _ transaction: CardTransaction) -> [UInt8]? {
        let app = transaction.application ?? card.applications.first
        let interface = transaction.interface ?? runtime.cardPresent
        switch tag {
        case 0x5F30: return card.serviceCodeBytes
        // SimulatorChoices: 9F6B only on a contactless read; DF60/DF61/DF62 only on a swipe.
        case 0x9F6B: return interface == .contactless ? card.track2 : nil
        case 0xDF60: return interface == .magstripe ? [card.magstripeAction] : nil
        case 0xDF61: return interface == .magstripe ? card.binBytes : nil
        case 0xDF62:
            guard interface == .magstripe else { return nil }
            return SimulatorChoices.magstripeCardDataTags.compactMap { tag in
                cardObject(tag, card, transaction).map { TLV(Tag(tag), $0) }
            }.encoded
        case 0x4F, 0x84: return app?.aid
        case 0x50: return app.map { Array($0.label.utf8) }
        case 0x87: return app.map { [$0.priority] }
        case 0x9F08: return app?.version
        case 0x5A: return card.panBytes
        case 0x5F24: return card.expiryDate
        case 0x5F25: return card.effectiveDateBytes
        case 0x5F28: return [UInt8(card.issuerCountry >> 8), UInt8(card.issuerCountry & 0xFF)]
        case 0x5F34: return [card.panSequenceNumber]
        case 0x57: return card.track2
        case 0x56: return card.track1
        case 0x5F20: return Array(card.cardholderName.utf8)
        case 0x82: return card.aip
        case 0x9F10: return card.issuerApplicationData
        case 0x9F36: return [UInt8(runtime.atc >> 8), UInt8(runtime.atc & 0xFF)]
        default: return nil
        }
    }

    /// TLVs of `tags` the terminal knows, in order, each once, from `transaction` (default: the current one) and the
    /// card when `cardAtReader` (default: a card is at a reader). `includeSRED`: SRED tags may be returned (ciphered
    /// outputs only; SimulatorChoices.sredTags). `truncatedPAN`: 5A is answered truncated (GetPlainTag's PROJECT
    /// CHOICE, SimulatorChoices.truncatedPAN) instead of being left out.
    func tlvs(
        _ tags: [Tag],
        includeSRED: Bool,
        truncatedPAN: Bool = false,
        transaction: CardTransaction? = nil,
        cardAtReader: Bool? = nil
    ) -> [TLV] {
        let transaction = transaction ?? runtime.transaction
        let cardAtReader = cardAtReader ?? (runtime.cardPresent != nil)
        var seen = Set<UInt32>()
        return tags.compactMap { tag in
            guard seen.insert(tag.rawValue).inserted else { return nil }
            if !includeSRED && truncatedPAN && tag.rawValue == 0x5A {
                return dataObject(0x5A, transaction, cardAtReader: cardAtReader)
                    .map { TLV(tag, SimulatorChoices.truncatedPAN($0)) }
            }
            guard includeSRED || !SimulatorChoices.sredTags.contains(tag.rawValue) else { return nil }
            return dataObject(tag.rawValue, transaction, cardAtReader: cardAtReader).map { TLV(tag, $0) }
        }
    }

    /// `first` followed by the requested tags not already in it.
    private func tags(_ first: [UInt32], then requested: [Tag]) -> [Tag] {
        first.map { Tag($0) } + requested.filter { !first.contains($0.rawValue) }
    }

    /// The RTC date and time as 9A YYMMDD and 9F21 HHMMSS BCD.
    private func today() -> (date: [UInt8], time: [UInt8]) {
        let now = CivilTime.dateTime(secondsSince2000: terminalClock())
        func bcd(_ value: Int) -> UInt8 { UInt8(value / 10 % 10) << 4 | UInt8(value % 10) }
        return (
            [bcd(now.year % 100), bcd(now.month), bcd(now.day)], [bcd(now.hour), bcd(now.minute), bcd(now.second)]
        )
    }

    private func nextATC() -> [UInt8] {
        runtime.atc &+= 1
        return [UInt8(runtime.atc >> 8), UInt8(runtime.atc & 0xFF)]
    }

    // MARK: - Application cryptograms (spec §12.4)

    /// The data objects of the cryptogram's data list (`EMVApplicationCryptogram.dataTags`) as the terminal reports
    /// them for `transaction` with the card at a reader: card-image overrides and omissions included, so the data a
    /// host receives is the data the card MACed.
    private func cryptogramData(_ transaction: CardTransaction) -> [UInt32: [UInt8]] {
        var data: [UInt32: [UInt8]] = [:]
        for tag in EMVApplicationCryptogram.dataTags {
            data[tag] = dataObject(tag, transaction, cardAtReader: true)
        }
        return data
    }

    /// 9F26 of `transaction` for `card`: a function of the data, so the same seed gives the same transcript.
    private func applicationCryptogram(_ card: CardProfile, _ transaction: CardTransaction) -> [UInt8] {
        let data = cryptogramData(transaction)
        return Self.crypto { try CardCryptogram.cryptogram(card, data: data) }
    }

    /// The card's check of the 91 the second GENERATE AC carries (`nil`: none came), against the ARQC of
    /// `transaction`, under the session key that ARQC was computed with.
    private func issuerAuthentication(
        _ issuerAuthenticationData: [UInt8]?,
        _ card: CardProfile,
        _ transaction: CardTransaction
    ) -> EMVApplicationCryptogram.IssuerAuthentication? {
        guard let issuerAuthenticationData else { return nil }
        guard let arqc = transaction.data[0x9F26] else { return .failed }
        let atc = EMVApplicationCryptogram.atc(cryptogramData(transaction))
        return Self.crypto {
            try EMVApplicationCryptogram.verifyIssuerAuthenticationData(
                issuerAuthenticationData,
                sessionKey: EMVApplicationCryptogram.sessionKey(masterKey: CardCryptogram.masterKey(card), atc: atc),
                arqc: arqc)
        }
    }

    /// Keeps the transaction date (9A, today's unless the host sent one) in `transaction` once the card MACs it: a
    /// later read gives the date the cryptogram covers, even after midnight.
    private func keepTransactionDate(_ transaction: inout CardTransaction) {
        if transaction.data[0x9A] == nil { transaction.data[0x9A] = today().date }
    }

    /// The card in the ICC reader, or `nil` (contact commands then answer −35).
    private var insertedCard: CardProfile? {
        guard runtime.cardPresent == .contact else { return nil }
        return script.card
    }

    // MARK: - Contact EMV (0x5510–0x5513)

    /// spec §5.2 0x5510: the card's applications as legacy 64-byte blocks, or in the full TLV layout for C2 = 01.
    func buildCandidateList(_ request: Request) -> Outcome {
        parsed(BuildCandidateList.self, request) { command in
            guard let card = insertedCard else { return .now(Reply(SimulatorChoices.noCardStatus)) }
            var apps = card.applications
            if let limit = command.maxApplications { apps = Array(apps.prefix(Int(limit))) }
            guard !apps.isEmpty else { return .now(Reply(.emvNotSupported)) }
            runtime.transaction = CardTransaction(stage: .candidatesListed)
            let list = BuildCandidateList.Response(
                candidates: apps.map { CandidateApplication(aid: $0.aid, label: $0.label, priority: $0.priority) })
            // The layout the request asked for: the current SDK's `C2 02 00 01` gets the full TLV list.
            if command.outputFormat == BuildCandidateList.fullTLVOutput { return .now(.ok(list.encodeFullTLV())) }
            return .now(.ok(list.encodeData()))
        }
    }

    /// spec §5.2 0x5511: selects the AID, keeps the transaction data, answers the requested tags (ciphered output, so
    /// SRED tags are allowed).
    func transactionInit(_ request: Request) -> Outcome {
        parsed(TransactionInit.self, request) { command in
            guard let card = insertedCard else { return .now(Reply(SimulatorChoices.noCardStatus)) }
            guard let app = card.applications.first(where: { $0.aid == command.aid }) else {
                return .now(Reply(SimulatorChoices.unknownAIDStatus))
            }
            var transaction = CardTransaction(stage: .initialised, application: app)
            transaction.data[0x5F2A] = BCDBytes.encode(UInt64(command.currencyCode), count: 2)
            transaction.data[0x5F36] = [command.exponent]
            transaction.data[0x9C] = [command.type.rawValue]
            transaction.data[0x9F02] = BCDBytes.encode(command.amount, count: 6)
            if let cashback = command.cashback { transaction.data[0x9F03] = BCDBytes.encode(cashback, count: 6) }
            if let date = command.date { transaction.data[0x9A] = date }
            if let time = command.time { transaction.data[0x9F21] = time }
            transaction.data[0x9F37] = random.bytes(4)
            runtime.transaction = transaction
            return .now(.ok(TLVResponse(tlvs: tlvs(command.requestedTags, includeSRED: true)).encodeData()))
        }
    }

    /// spec §5.2 0x5512: first GENERATE AC with the card's decision (default ARQC); answers CID, AC, IAD, ATC, TVR,
    /// TSI and any other requested tag.
    func transactionProcess(_ request: Request) -> Outcome {
        parsed(TransactionProcess.self, request) { command in
            guard let card = insertedCard else { return .now(Reply(SimulatorChoices.noCardStatus)) }
            guard runtime.transaction.stage == .initialised else {
                return .now(Reply(SimulatorChoices.outOfOrderStatus))
            }
            guard !card.refusesTransaction else {
                runtime.transaction.stage = .idle
                return .now(Reply(.emvNotAccepted))  // −301: card refused (spec §5.2 0x5512)
            }
            let cryptogram = CryptogramType(rawValue: card.firstCryptogram.rawValue) ?? .arqc
            var tvr = command.tvr
            // Cardholder verification inside TransactionProcess (SimulatorChoices).
            runtime.transaction.data[0x9F34] = card.cardholderVerification.results
            if card.cardholderVerification == .onlinePIN {
                if tvr.count > SimulatorChoices.tvrOnlinePINEnteredByte {
                    tvr[SimulatorChoices.tvrOnlinePINEnteredByte] |= SimulatorChoices.tvrOnlinePINEnteredMask
                }
                switch pinBlock(format: .iso0) {
                case .entered(let pin):
                    runtime.transaction.data[0xDF3E] = pin.ksn.bytes
                    runtime.transaction.data[0xDF3F] = pin.block
                    runtime.transaction.data[0x99] = pin.block
                case .failed(let status):
                    return .now(Reply(status))
                }
            }
            runtime.transaction.data[0x95] = tvr
            if let date = command.date { runtime.transaction.data[0x9A] = date }
            if let time = command.time { runtime.transaction.data[0x9F21] = time }
            if let counter = command.transactionSequenceCounter { runtime.transaction.data[0x9F41] = counter }
            if let version = command.applicationVersion { runtime.transaction.data[0x9F09] = version }
            runtime.transaction.data[0x9F36] = nextATC()
            runtime.transaction.data[0x9F27] = [cryptogram.rawValue]
            keepTransactionDate(&runtime.transaction)
            runtime.transaction.data[0x9F10] = CardCryptogram.issuerApplicationData(
                card.issuerApplicationData, first: cryptogram)
            runtime.transaction.data[0x9F26] = applicationCryptogram(card, runtime.transaction)
            runtime.transaction.data[0x9B] = SimulatorChoices.defaultTSI
            runtime.transaction.stage = .processed(cryptogram)
            // spec §5.2 0x5512: the current SDK (its request names a key slot, DF44) takes the contact flow's online
            // PIN from this answer's DF3E and DF3F, whatever tags it asked for.
            let pinTags: [UInt32] =
                command.keySlot != nil && card.cardholderVerification == .onlinePIN
                ? SimulatorChoices.onlinePINTags : []
            let answer = tlvs(
                tags(SimulatorChoices.generateACTags + pinTags, then: command.requestedTags), includeSRED: false)
            return .now(.ok(TLVResponse(tlvs: answer).encodeData()))
        }
    }

    /// spec §5.2 0x5513: second GENERATE AC after an ARQC: status 7 (TC) when 8A is "00", else 8 (AAC); with a 91
    /// whose ARPC does not verify, or a card that declines it, 8 whatever 8A says (spec §12.4).
    func transactionFinalisation(_ request: Request) -> Outcome {
        parsed(TransactionFinalisation.self, request) { command in
            guard let card = insertedCard else { return .now(Reply(SimulatorChoices.noCardStatus)) }
            guard runtime.transaction.stage == .processed(.arqc) else {
                return .now(Reply(SimulatorChoices.outOfOrderStatus))
            }
            let decision = CardCryptogram.secondGenerateAC(
                arc: command.authorisationResponseCode,
                issuerAuthentication: issuerAuthentication(
                    command.issuerAuthenticationData, card, runtime.transaction),
                declines: card.declinesSecondGenerateAC)
            let approved = decision.cryptogram == .tc
            runtime.transaction.data[0x8A] = command.authorisationResponseCode
            runtime.transaction.data[0x9F27] = [decision.cryptogram.rawValue]
            runtime.transaction.data[0x9F10] = CardCryptogram.issuerApplicationData(
                card.issuerApplicationData, first: .arqc, second: decision)
            runtime.transaction.data[0x9F26] = applicationCryptogram(card, runtime.transaction)
            runtime.transaction.stage = .finalised
            let answer = tlvs(tags(SimulatorChoices.generateACTags, then: command.requestedTags), includeSRED: false)
            let response = TransactionFinalisation.Response(approved: approved, tlvs: answer)
            return .now(Reply(response.status, response.encodeData()))
        }
    }

    // MARK: - Single entry point and contactless (0x5530, 0x5531)

    /// spec §5.2 0x5530: waits for the scripted card on the enabled readers. Inserted → DF70 11; tapped (NFC the only
    /// usable reader) → the whole contactless read happens here: DF70 21, DF72 outcome (default 30 36, approved
    /// offline), requested tags. No card → −2 after DF71.
    func nfcStartTransaction(_ request: Request) -> Outcome {
        parsed(NFCStartTransaction.self, request) { command in
            let timeout = scaled(.seconds(Int(command.cardWaitTimeout)))
            guard let card = script.card, let interface = card.interface(forReaders: command.readers.map(\.rawValue))
            else { return .after(timeout, Reply(.timeout)) }
            let delay = runtime.cardPresent == interface ? .zero : scaled(script.cardPresentationDelay)
            guard delay < timeout || delay == .zero else { return .after(timeout, Reply(.timeout)) }

            var transaction = CardTransaction()
            transaction.data[0x9C] = [command.type.rawValue]
            transaction.data[0x5F2A] = BCDBytes.encode(UInt64(command.currencyCode), count: 2)
            transaction.data[0x5F36] = [command.exponent]
            transaction.data[0x9F02] = BCDBytes.encode(command.amount, count: 6)
            if let cashback = command.cashback { transaction.data[0x9F03] = BCDBytes.encode(cashback, count: 6) }
            if let date = command.date { transaction.data[0x9A] = date }
            if let time = command.time { transaction.data[0x9F21] = time }

            let response: NFCStartTransaction.Response
            transaction.interface = interface
            switch interface {
            case .magstripe:
                transaction.stage = .swiped
                transaction.data[0x9F39] = [SimulatorChoices.magstripeEntryMode]
                response = NFCStartTransaction.Response(
                    activatedReader: activatedReader(card, .msr),
                    outcome: nil,
                    tlvs: tlvs(command.requestedTags, includeSRED: false, transaction: transaction, cardAtReader: true)
                )
            case .contact:
                response = NFCStartTransaction.Response(
                    activatedReader: activatedReader(card, .icc),
                    outcome: nil,
                    tlvs: tlvs(command.requestedTags, includeSRED: false, transaction: transaction)
                )
            case .contactless:
                let outcome =
                    (try? NFCOutcome(bytes: card.contactlessOutcome)) ?? NFCOutcome(cvm: .receipt, result: .approved)
                let cryptogram: CryptogramType =
                    switch outcome.result {
                    case .approved: .tc
                    case .onlineRequest: .arqc
                    default: .aac
                    }
                transaction.application = card.applications.first
                transaction.stage = .contactlessRead(outcome)
                transaction.data[0x9F37] = random.bytes(4)
                transaction.data[0x9F36] = nextATC()
                transaction.data[0x9F27] = [cryptogram.rawValue]
                keepTransactionDate(&transaction)
                transaction.data[0x9F10] = CardCryptogram.issuerApplicationData(
                    card.issuerApplicationData, first: cryptogram)
                transaction.data[0x9F26] = applicationCryptogram(card, transaction)
                transaction.data[NFCOutcome.tag.rawValue] = outcome.bytes
                transaction.data[0x9F34] =
                    switch outcome.cvm {
                    case .onlinePIN: SimulatorChoices.cvmResultsOnlinePIN
                    case .receiptWithSignature: SimulatorChoices.cvmResultsSignature
                    default: SimulatorChoices.cvmResultsNoCVM
                    }
                response = NFCStartTransaction.Response(
                    activatedReader: activatedReader(card, .nfc),
                    outcome: outcome,
                    tlvs: tlvs(command.requestedTags, includeSRED: false, transaction: transaction, cardAtReader: true)
                )
            }
            let reply = Reply(
                .success,
                response.encodeData(),
                effects: [.cardPresented(interface), .transaction(transaction)]
            )
            return .after(delay, reply)
        }
    }

    /// The DF70 a card-wait answer reports: the reader the card met, unless the card image overrides DF70 with a
    /// known reader id (an unknown one reads as none, which the driver must also refuse).
    private func activatedReader(_ card: CardProfile, _ reader: CardReader) -> CardReader? {
        guard let value = card.tagOverrides[NFCStartTransaction.Response.activatedReaderTag.rawValue] else {
            return reader
        }
        return value.count == 1 ? CardReader(rawValue: value[0]) : nil
    }

    /// spec §5.2 0x5531: DF73 "00" → DF72 30 36 (approved), anything else → 30 37 (declined).
    func nfcCompleteTransaction(_ request: Request) -> Outcome {
        parsed(NFCCompleteTransaction.self, request) { command in
            guard case .contactlessRead = runtime.transaction.stage else {
                return .now(Reply(SimulatorChoices.outOfOrderStatus))
            }
            let approved = command.authorisationResponseCode == SimulatorChoices.approvedARC
            let outcome = approved ? SimulatorChoices.nfcApprovedOutcome : SimulatorChoices.nfcDeclinedOutcome
            runtime.transaction.data[0x8A] = command.authorisationResponseCode
            runtime.transaction.data[NFCOutcome.tag.rawValue] = outcome
            runtime.transaction.stage = .contactlessCompleted
            let response = NFCCompleteTransaction.Response(
                outcome: try? NFCOutcome(bytes: outcome),
                tlvs: tlvs(command.requestedTags, includeSRED: false)
            )
            return .now(.ok(response.encodeData()))
        }
    }

    // MARK: - Tags (0x5025, 0x5026)

    /// spec §5.2 0x5026: the requested tags the terminal knows, never SRED tags in clear; 5A truncated
    /// (SimulatorChoices.truncatedPAN).
    func getPlainTag(_ command: GetPlainTag) -> Reply {
        .ok(TLVResponse(tlvs: tlvs(command.tags, includeSRED: false, truncatedPAN: true)).encodeData())
    }

    /// spec §5.2 0x5025, §12.3: one tag → its bare value, several → TLVs; TDES-CBC under the data-response key of the
    /// current SRED KSN. The blob is the response's ciphered DATA itself.
    func getSecuredTag(_ command: GetSecuredTag) -> Reply {
        let found = tlvs(command.tags, includeSRED: true)
        let plaintext = command.tags.count == 1 ? (found.first?.value ?? []) : found.encoded
        let key = sessionKeys.dataResponse
        let blob = Self.crypto { try SRED.encrypt(plaintext: plaintext, key: key) }
        return Reply(.success, SecuredTagResponse(blob: blob).encodeData(), isCiphertext: true)
    }

    // MARK: - PIN (0x5170, 0x5171)

    func simplifiedOnlinePIN(_ request: Request) -> Outcome {
        parsed(SimplifiedOnlinePIN.self, request) { command in
            guard let format = PINBlockFormat(rawValue: command.pinBlockFormat.rawValue), format != .iso4 else {
                return .now(Reply(SimulatorChoices.malformedRequestStatus))  // ISO 9564 format 4 is AES-only
            }
            return .now(onlinePIN(format: format, layout: command.isCurrentDialect ? .lengthPrefixed : .tlv))
        }
    }

    /// The scripted PIN as an enciphered PIN block under the PIN variant of the PIN DUKPT key (spec §12.3), with the
    /// PIN KSN, in `layout`: the current dialect's `LL LL <KSN> LL LL <block>`, or the 2020 dialect's TLVs
    /// `DF3E 0A <KSN> DF3F 08 <block>` (spec §5.2 0x5171).
    func onlinePIN(format: PINBlockFormat, layout: SimplifiedOnlinePIN.Response.Layout = .tlv) -> Reply {
        switch pinBlock(format: format) {
        case .entered(let pin):
            .ok(SimplifiedOnlinePIN.Response(pinKSN: pin.ksn.bytes, pinBlock: pin.block, layout: layout).encodeData())
        case .failed(let status): Reply(status)
        }
    }

    /// The scripted PIN enciphered under the PIN variant of the PIN DUKPT key; the PIN counter advances on the first
    /// PIN of the secure session (= transaction) only.
    func pinBlock(format: PINBlockFormat) -> PINEntry {
        let pan = script.card?.pan
        guard pan != nil || format == .iso1 else { return .failed(SimulatorChoices.noCardStatus) }
        let ksn: KSN
        if let issued = runtime.pinKSNInSession {
            ksn = issued
        } else {
            guard let counter = KSN.nextCounter(after: device.pinCounter) else {
                return .failed(SimulatorChoices.keysExhaustedStatus)
            }
            device.pinCounter = counter
            persist()
            ksn = device.pinKSN
            runtime.pinKSNInSession = ksn
        }
        let pin = script.pin
        let fill = random.bytes(PINBlock.randomByteCount(pinLength: pin.utf8.count, format: format))
        let key = Self.crypto { try DUKPT.sessionKey(ipek: ipek, ksn: ksn, variant: .pin) }
        do {
            let block = try PINBlock.encrypt(pin: pin, pan: pan, format: format, randomBytes: fill, key: key)
            return .entered(EncipheredPIN(ksn: ksn, block: block))
        } catch {
            return .failed(SimulatorChoices.invalidScriptedPINStatus)
        }
    }
}

/// The cardholder's PIN entry: enciphered, or the status the PIN command answers instead.
enum PINEntry: Sendable {
    case entered(EncipheredPIN)
    case failed(Status)
}

/// A PIN block and the PIN KSN it was enciphered under.
struct EncipheredPIN: Sendable {
    let ksn: KSN
    let block: [UInt8]
}

/// Packed BCD for amounts and currency codes (spec §4), for the values the host already validated.
enum BCDBytes {
    static func encode(_ value: UInt64, count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var rest = value
        for index in stride(from: count - 1, through: 0, by: -1) {
            out[index] = UInt8(rest % 10) | UInt8(rest / 10 % 10) << 4
            rest /= 100
        }
        return out
    }
}
