import ArgumentParser
import UCubeLink
import UCubeProtocol
import UCubeRuntime

/// One `ucube rpc` subcommand per command of `CommandCatalogue.all`, in catalogue order. Each builds the typed request
/// of `UCubeProtocol` from its arguments, sends it and prints the decoded reply (`RPCOutput`).
enum RPCSubcommands {
    static let all: [any ParsableCommand.Type] = [
        NoArguments<CancelAll>.self,
        NoArguments<RTCGet>.self,
        RTCSetSubcommand.self,
        NoArguments<RepeatLastMessage>.self,
        NoArguments<GetStatus>.self,
        GetInfoSubcommand.self,
        OpaquePayload<SetInfoProd>.self,
        SetInfoFieldSubcommand.self,
        WaitCardSubcommand.self,
        WaitCardRemovalSubcommand.self,
        OpaquePayload<CardSendAPDU>.self,
        OpaquePayload<CardPowerOff>.self,
        OpaquePayload<MagstripeRead>.self,
        TagList<GetSecuredTag>.self,
        TagList<GetPlainTag>.self,
        DisplayMessageSubcommand.self,
        DisplayListBoxSubcommand.self,
        OpaquePayload<DisplayMessageWithKI>.self,
        OpaquePayload<DisplayMessageWithKICustom>.self,
        NoArguments<PowerOff>.self,
        NoArguments<EnterSecureSession>.self,
        NoArguments<ExitSecureSession>.self,
        OpaquePayload<GetKeyInfo>.self,
        OpaquePayload<ExportPublicKey>.self,
        OpaquePayload<ImportPublicKeyCert>.self,
        OpaquePayload<ImportPublicKeyPersoCert>.self,
        NoArguments<InstallForLoadKey>.self,
        OpaquePayload<LoadKey>.self,
        InstallForLoadSubcommand.self,
        LoadSubcommand.self,
        OpaquePayload<OnlinePIN>.self,
        SimplifiedOnlinePINSubcommand.self,
        OpaquePayload<BankParametersDownload>.self,
        OpaquePayload<BankParametersGet>.self,
        BuildCandidateListSubcommand.self,
        TransactionInitSubcommand.self,
        TransactionProcessSubcommand.self,
        TransactionFinalisationSubcommand.self,
        NFCStartSubcommand.self,
        NFCCompleteSubcommand.self,
    ]

    /// Opens the link, sends `command`, prints the reply (exit code 3 on a non-success status) and closes the link.
    static func send<C: RPCCommand>(_ command: C, context: CommandContext) async throws {
        try await withConnection(context, prepare: .asRecorded) { connection in
            let reply = try await connection.client.send(command)
            try RPCOutput.print(reply, command: C.descriptor, json: context.json)
        }
    }

    /// The configuration every subcommand uses: name and abstract from the catalogue, and a discussion that gives
    /// the id, the security modes (spec §2.3), the states that accept it and `details`.
    static func configuration<C: RPCCommand>(_ type: C.Type, _ details: String = "") -> CommandConfiguration {
        let d = C.descriptor
        // Only help shows the discussion; the parser asks for these configurations many times at every start.
        guard UCube.includeDiscussion else { return CommandConfiguration(commandName: d.cliName, abstract: d.summary) }
        let states = TerminalState.allCases.filter { d.allowedStates.contains($0) }.map(\.description)
        var discussion = "\(d.id). In a secure session: input \(d.inputMode.rawValue), output \(d.outputMode.rawValue)."
        if states.count < TerminalState.allCases.count {
            discussion += " Accepted in \(states.joined(separator: ", ")); other states answer BAD_TERMINAL_STATE."
        }
        if d.isLongRunning {
            discussion += " Long-running: the terminal answers on an event or when its own timeout expires."
        }
        if !details.isEmpty { discussion += "\n\n" + details }
        discussion += HelpExamples.section("rpc " + d.cliName)
        return CommandConfiguration(commandName: d.cliName, abstract: d.summary, discussion: discussion)
    }
}

/// A `ucube rpc` subcommand: it turns its arguments into one typed request. Arguments are checked while parsing
/// (so bad input exits 64 before any link is opened), and `run(in:)` sends the request.
protocol RPCSubcommand: UCubeCommand {
    associatedtype Request: RPCCommand
    /// The request; throws `ValidationError` naming the argument that is wrong, or the `CommandError` of the
    /// request's own checks.
    func request() throws -> Request
}

extension RPCSubcommand {
    /// Builds and encodes the request, so a value the layout refuses (a text too long, a block over 2040 bytes…) is
    /// a usage error that names the command.
    func validate() throws {
        try ValidationError.checking {
            do {
                _ = try request().encodePayload()
            } catch let error as CommandError {
                throw ValidationError("\(Request.descriptor.cliName): \(error.reason)")
            }
        }
    }

    func run(in context: CommandContext) async throws {
        try await RPCSubcommands.send(try request(), context: context)
    }
}

extension RPCSubcommands {
    /// Commands whose request is empty (spec §5.2: CancelAll, RTCGet, PowerOff, Enter/ExitSecureSession,
    /// InstallForLoadKey).
    struct NoArguments<Request: EmptyPayloadCommand>: RPCSubcommand {
        static var configuration: CommandConfiguration { RPCSubcommands.configuration(Request.self) }

        @OptionGroup var globals: GlobalOptions

        func request() -> Request { Request() }
    }

    /// Commands whose payload layout is not in the sources (spec §5.1 MP-README-only commands, §5.2 bank
    /// parameters): the bytes are given in hex and sent as they are.
    struct OpaquePayload<Request: OpaqueCommand>: RPCSubcommand {
        static var configuration: CommandConfiguration {
            RPCSubcommands.configuration(
                Request.self,
                "The layout is not in the sources: give the payload in hex (spaces allowed; several words are joined)."
            )
        }

        @OptionGroup var globals: GlobalOptions

        @Argument(help: ArgumentHelp("The request payload in hex (default: empty).", valueName: "hex-payload"))
        var payload: [String] = []

        func request() throws -> Request {
            try Request(payload: try Parse.hex(payload.joined(separator: " "), argument: "<hex-payload>"))
        }
    }

    /// GetPlainTag and GetSecuredTag: a list of tag ids (spec §5.2 0x5025, 0x5026).
    struct TagList<Request: TagListCommand>: RPCSubcommand {
        static var configuration: CommandConfiguration {
            RPCSubcommands.configuration(
                Request.self,
                "Tags are hex (9F27) or tag dictionary names (cryptogramInformationData)."
            )
        }

        @OptionGroup var globals: GlobalOptions

        @Argument(help: ArgumentHelp("Tags to read, hex or dictionary names.", valueName: "tag"), transform: Parse.tag)
        var tags: [Tag] = []

        func request() throws -> Request {
            guard !tags.isEmpty else { throw ValidationError("give at least one <tag> to read") }
            return Request(tags: tags)
        }
    }
}
