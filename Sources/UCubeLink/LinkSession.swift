import UCubeProtocol

/// A link's session with the terminal, from the record the last process left to the record this one leaves (spec
/// §8.6, §8.7): what is sent before the first command, what a payment starting may take as known, the terminal a
/// payment met, and the record written at a clean close. The rules are `LinkOpening`'s and `LinkMemo`'s (values);
/// this actor keeps the memo and asks the client. One session for the CLI's `Connection`, the fuzz driver and the
/// benchmarks; the caller reads and writes the record's file.
package actor LinkSession {
    package nonisolated let client: RPCClient
    /// How the link starts, from the record and the preparation.
    package nonisolated let opening: LinkOpening
    private var memo = LinkMemo()

    /// A link whose last process left `record` (what the session file, or a recording, says), for a command that
    /// needs `preparation`. `makeClient` makes the link's client with the rules the opening trusts (the record's
    /// when clean, a fresh session's otherwise); nothing is sent until `start`.
    package init(
        record: SessionRecord.Loaded, preparation: LinkPreparation, client makeClient: (LinkRules) -> RPCClient
    ) {
        opening = LinkOpening(record, preparation: preparation)
        client = makeClient(opening.rules)
    }

    /// The record the process writes when it opens the link, before `start` sends anything: ours from now on, so a
    /// process that dies before closing leaves this mark and the next one resets the terminal.
    package nonisolated func openRecord(owner: Int32) -> SessionRecord { opening.openRecord(owner: owner) }

    /// Sends what the opening decided before the command's first frame, and takes what is then known of the
    /// terminal.
    package func start() async throws(LinkError) {
        try await opening.perform(on: client)
        memo = LinkMemo(opening, commandsSent: await client.commandsSent)
    }

    /// What a payment starting now may take as known (spec §8.6, `LinkMemo.linkStart`).
    package func linkStart() async -> LinkStart {
        let (lostTrack, secured, sent) = (await client.lostTrack, await client.isSecured, await client.commandsSent)
        return memo.linkStart(lostTrack: lostTrack, secured: secured, commandsSent: sent)
    }

    /// Keeps the terminal a payment met (nil: it learned none, and what was known no longer holds). A payment's
    /// starting steps leave the terminal's state known, whatever they started from.
    package func remember(_ terminal: KnownTerminal?) async {
        memo.remember(terminal, commandsSent: await client.commandsSent)
    }

    /// Sends a command whose answer shows whether the terminal is idle (a read: `info`'s GetInfo). On a `.query` link
    /// that took the terminal as idle on the record's word alone, the first such command must confirm it, and the
    /// terminal is reset and asked again if it does not (`RPCClient.sendConfirmingIdle`, spec §8.7); `reset` says so.
    /// Otherwise, and for every later command, it is `client.send`.
    package func query<C: RPCCommand>(_ command: C) async throws(LinkError) -> (reply: Reply<C.Response>, reset: Bool) {
        guard memo.takeUnverified() else { return (try await client.send(command), false) }
        let (reply, reset) = try await client.sendConfirmingIdle(command)
        if reset { memo.wasReset(commandsSent: await client.commandsSent) }
        return (reply, reset)
    }

    /// The record to write when the link closes cleanly; nil: the session is not kept, and its file goes
    /// (`LinkMemo.closingRecord`).
    package func closingRecord() async -> SessionRecord? {
        let (rules, lostTrack, sent) = (await client.rules, await client.lostTrack, await client.commandsSent)
        return memo.closingRecord(rules: rules, lostTrack: lostTrack, commandsSent: sent)
    }
}
