import ArgumentParser

/// One `ucube rpc` subcommand per command of the catalogue (filled in below).
enum RPCSubcommands {
    static let all: [any ParsableCommand.Type] = []
}
