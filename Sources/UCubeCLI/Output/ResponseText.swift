import UCubeProtocol
import UCubeSupport

/// What `ucube rpc` and `decode` print for a terminal's answer, a line each: the wording is the command line's,
/// so it lives here, beside the other renderers, and not in the protocol layer that parses the answer. Card data
/// is masked where each line is made, and again at the exit (`Console`).
protocol ResponseText {
    var summary: [String] { get }
}

/// Summary lines for TLV data: `TagValueFormatter`'s tree ("9F27 cryptogramInformationData: 80 (ARQC)"), so names,
/// value formats and masking come from the one tag dictionary.
enum TLVText {
    static func lines(_ tlvs: [TLV], context: TagContext = .payment) -> [String] {
        TagValueFormatter.describe(tlvs, context: context)
    }
}

enum ResponseLines {
    /// The lines for any decoded answer (every response type of `CommandRegistry` has its own; a test checks).
    static func of(_ response: any RPCResponse) -> [String] {
        (response as? any ResponseText)?.summary ?? ["ok"]
    }
}

// NFCTransaction.swift
extension NFCStartTransaction.Response: ResponseText {
    var summary: [String] {
        var lines: [String] = []
        if let activatedReader { lines.append("activated reader: \(activatedReader.name)") }
        if let outcome { lines.append("outcome: \(outcome)") }
        return lines + TLVText.lines(tlvs)
    }
}

// NFCTransaction.swift
extension NFCCompleteTransaction.Response: ResponseText {
    var summary: [String] {
        (outcome.map { ["outcome: \($0)"] } ?? []) + TLVText.lines(tlvs)
    }
}

// RTC.swift
extension RTCGet.Response: ResponseText {
    var summary: [String] { ["terminal clock: \(dateTime)"] }
}

// CommonResponses.swift
extension TLVResponse: ResponseText {
    var summary: [String] {
        var lines = TLVText.lines(tlvs)
        if let cryptogram { lines.append("cryptogram: \(cryptogram.name)") }
        return lines.isEmpty ? ["no data"] : lines
    }
}

// CommonResponses.swift
extension RawDataResponse: ResponseText {
    var summary: [String] { data.isEmpty ? ["no data"] : ["data: \(Masking.hex(data, separator: " "))"] }
}

// CommonResponses.swift
extension SecuredTagResponse: ResponseText {
    var summary: [String] { ["SRED blob (\(blob.count) bytes): \(Hex.encode(blob))"] }
}

// RecoveryCommands.swift
extension GetStatus.Response: ResponseText {
    var summary: [String] { ["process state: \(Hex.encode([processState])) \(meaning)"] }
}

// SessionCommands.swift
extension EnterSecureSession.Response: ResponseText {
    var summary: [String] { ["SRED KSN: \(Hex.encode(ksn))"] }
}

// BuildCandidateList.swift
extension BuildCandidateList.Response: ResponseText {
    var summary: [String] {
        guard !candidates.isEmpty else { return ["no candidate application"] }
        return candidates.enumerated().map { index, app in
            var line = "\(index + 1). \(app.label) AID \(Hex.encode(app.aid)) priority \(app.priority)"
            if app.blocked { line += " (blocked)" }
            return line
        }
    }
}

// Download.swift
extension InstallForLoadKey.Response: ResponseText {
    var summary: [String] {
        [
            "CA certificate: \(caCertificate.count) bytes",
            "KEK certificate: \(kekCertificate.count) bytes",
        ] + (initialDataKSN.map { ["initial data KSN: \(Hex.encode($0))"] } ?? [])
            + (initialPINKSN.map { ["initial PIN KSN: \(Hex.encode($0))"] } ?? [])
            + ["dongle certificate: \(Hex.encode(raw))"]
    }
}

// GetInfo.swift
extension DeviceInfo: ResponseText {
    var summary: [String] {
        var lines: [String] = []
        func add(_ label: String, _ value: String?) { if let value { lines.append("\(label): \(value)") } }
        add("serial number", serialNumber)
        add("part number", partNumber)
        add("state", state?.description)
        add("battery", batteryPercent.map { "\($0)%" })
        add("charging", charging?.description)
        add("firmware (SVPP)", firmwareVersion?.description)
        add("NFC firmware", nfcFirmwareVersion?.description)
        add("EMV ICC config", emvICCConfigVersion?.description)
        add("EMV NFC config", emvNFCConfigVersion?.description)
        add("EMV L1", emvL1Version?.description)
        add("EMV L2", emvL2Version?.description)
        add("PCI PED", pciPEDVersion?.description)
        add("boot loader", bootLoaderVersion?.description)
        add("OS", osVersion?.description)
        add("NFC module", nfcModuleState.map { $0 == 0 ? "none" : $0 == 3 ? "ready" : "not ready (\($0))" })
        add("speed mode", speedMode?.description)
        add("power-off timeout", powerOffTimeout.map { $0 == 0 ? "never" : "\($0) s" })
        add("locale", locale)
        add("supported locales", supportedLocales?.joinedWithoutLookup(separator: ", "))
        return lines
    }
}

// RPCCommand.swift
extension EmptyResponse: ResponseText {
    var summary: [String] { ["ok"] }
}

// CardCommands.swift
extension WaitCard.Response: ResponseText {
    var summary: [String] {
        var lines = ["card on \(reader.name)"]
        if let iccStatus { lines.append("ICC status: 0x\(Hex.encode([iccStatus]))") }
        if let atr { lines.append("ATR: \(Hex.encode(atr))") }
        return lines
    }
}

// Display.swift
extension DisplayMessage.Response: ResponseText {
    var summary: [String] { [key.map { "key: 0x\(Hex.encode([$0]))" } ?? "no key (timeout)"] }
}

// Display.swift
extension DisplayListBox.Response: ResponseText {
    var summary: [String] { ["selected item: \(selectedIndex)"] }
}

// SimplifiedOnlinePIN.swift
extension SimplifiedOnlinePIN.Response: ResponseText {
    var summary: [String] {
        ["PIN KSN: \(Hex.encode(pinKSN))", "PIN block (enciphered): \(Hex.encode(pinBlock))"]
    }
}

// EMVTransaction.swift
extension TransactionFinalisation.Response: ResponseText {
    var summary: [String] {
        [approved ? "approved (TC)" : "declined (AAC)"] + TLVText.lines(tlvs)
    }
}
