import UCubeProtocol

/// The card readers a payment enables when the caller does not name them, chosen from GetInfo as the SDKs choose
/// them (spec §1, §7.1 D1 and ED rows, §8.1). Pure.
/// The product is told by the first character of D1 printed "a.b.c.d" with signed bytes, as the current SDK tells it
/// (L:mdm.GetDeviceInfoTask.retrieveDeviceModel):
/// - `6` (a uCube Touch, "6.0.0.54") has ICC and NFC, no magstripe;
/// - `7` (a YT-Key or YT-SOM) has no reader the SDKs name: the caller's readers stand, as without a D1;
/// - anything else is a uCube: a magstripe reader and ICC, and NFC only when its NFC module is ready (ED = 3). The
///   2020 SDK enabled MSR, ICC and NFC in that order (A-Pay:PaymentHelper), and WaitCard without NFC.
package enum TerminalReaders {
    package static func readers(firmware: FirmwareVersion?, nfcModuleState: Int?) -> [CardReader]? {
        guard let first = firmware?.parts.first else { return nil }
        switch String(Int8(bitPattern: first)).first {
        case "6": return [.icc, .nfc]
        case "7": return nil
        default: return nfcModuleState == 3 ? [.msr, .icc, .nfc] : [.msr, .icc]
        }
    }
}
