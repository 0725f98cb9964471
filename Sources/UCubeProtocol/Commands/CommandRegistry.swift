/// Maps a command id to its typed request and response, so generic code (`ucube decode`, `--trace`, the simulator's
/// dispatch) can read any frame. Descriptive data (names, modes) stays in `CommandCatalogue`; this table only lists
/// the Swift types, each once.
package enum CommandRegistry {
    /// Every command type, in `CommandCatalogue` order.
    package static let types: [any RPCCommand.Type] = [
        CancelAll.self,
        RTCGet.self,
        RTCSet.self,
        RepeatLastMessage.self,
        GetStatus.self,
        GetInfo.self,
        SetInfoProd.self,
        SetInfoField.self,
        WaitCard.self,
        WaitCardRemoval.self,
        CardSendAPDU.self,
        CardPowerOff.self,
        MagstripeRead.self,
        GetSecuredTag.self,
        GetPlainTag.self,
        DisplayMessage.self,
        DisplayListBox.self,
        DisplayMessageWithKI.self,
        DisplayMessageWithKICustom.self,
        PowerOff.self,
        EnterSecureSession.self,
        ExitSecureSession.self,
        GetKeyInfo.self,
        ExportPublicKey.self,
        ImportPublicKeyCert.self,
        ImportPublicKeyPersoCert.self,
        InstallForLoadKey.self,
        LoadKey.self,
        InstallForLoad.self,
        Load.self,
        OnlinePIN.self,
        SimplifiedOnlinePIN.self,
        BankParametersDownload.self,
        BankParametersGet.self,
        BuildCandidateList.self,
        TransactionInit.self,
        TransactionProcess.self,
        TransactionFinalisation.self,
        NFCStartTransaction.self,
        NFCCompleteTransaction.self,
    ]

    private static let byID: [CommandID: any RPCCommand.Type] = Dictionary(
        types.map { ($0.id, $0) },
        uniquingKeysWith: { first, _ in first }
    )

    /// The request type for `id`; `nil` for an id this project does not know.
    package static func type(for id: CommandID) -> (any RPCCommand.Type)? { byID[id] }

    /// The typed request a payload reads as; `nil` for an unknown id or a payload that does not follow its layout.
    package static func describeRequest(id: CommandID, payload: [UInt8]) -> (any RPCCommand)? {
        guard let type = byID[id] else { return nil }
        return try? type.init(payload: payload)
    }

    /// The typed request, or the reason the payload does not follow its layout; `nil` for an unknown id.
    package static func decodeRequest(id: CommandID, payload: [UInt8]) throws(CommandError) -> (any RPCCommand)? {
        guard let type = byID[id] else { return nil }
        return try type.init(payload: payload)
    }

    /// The typed response; `nil` for an unknown id or a status that carries no data for this command (anything but
    /// 0, or 7/8 for TransactionFinalisation). Throws when the data does not follow the layout.
    package static func decodeResponse(
        id: CommandID,
        status: Status,
        data: [UInt8]
    ) throws(CommandError)
        -> (any RPCResponse)?
    {
        guard let type = byID[id] else { return nil }
        return try decode(type, status: status, data: data)
    }

    private static func decode<C: RPCCommand>(
        _ type: C.Type,
        status: Status,
        data: [UInt8]
    ) throws(CommandError)
        -> (any RPCResponse)?
    {
        guard C.successStatuses.contains(status) else { return nil }
        return try C.Response(status: status, data: data)
    }
}
