import ArgumentParser
import UCubeLink
import UCubeProtocol
import UCubeRuntime

extension UCube {
    /// `ucube info`: GetInfo with the standard tags, shown decoded.
    struct Info: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "Show the terminal's serial and part number, versions, state and battery.",
            discussion:
                "With several terminals (--device repeated, --devices FILE), a fleet run: see `ucube help mdm-update` and docs/fleet.md."
                + HelpExamples.section("info")
        )

        @OptionGroup var globals: GlobalOptions
        @OptionGroup var fleet: FleetQueryOptions

        func run(in context: CommandContext) async throws { try await Self.run(in: context, fleet: fleet.values) }

        /// `info` with its options as plain values: `CommonLines` calls it without building the option groups.
        static func run(in context: CommandContext, fleet: FleetOptionValues) async throws {
            if let run = try FleetRun(command: "info", context: context, options: fleet, resumes: false) {
                try await run.run { device in try await show(context.single(device, json: true)) }
                return
            }
            try await show(context)
        }

        private static func show(_ context: CommandContext) async throws {
            // GetInfo shows whether the terminal was READY: after a clean exit nothing is sent before it (spec §8.7).
            try await withConnection(context, prepare: .query) { connection in
                let reply = try await connection.query(GetInfo())
                if reply.isCiphered { throw CLIFailure.cipheredInfo }
                try RPCOutput.print(reply, command: GetInfo.descriptor, json: context.json)
            }
        }
    }
}
