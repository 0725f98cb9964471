import Testing
import UCubeCrypto
import UCubeProtocol
import UCubeSimulator

@testable import UCubeLink

/// The driver's client against the simulator, in process (as swift-nio-ssh runs its client against its server):
/// timeouts, cancel, a dropped link and the secured layout with a MAC checked against the X9.24 keys.
@Suite struct ClientSimulatorTests {
    struct Harness {
        let client: RPCClient
        let peer: InMemoryTransport.PeerEnd
        let serving: Task<Void, Never>
    }

    static func harness(script: SimulatorScript = .default, timeout: Duration = .seconds(30)) throws -> Harness {
        let simulator = try TerminalSimulator(configuration: SimulatorConfiguration(script: script, timeScale: 0.01))
        let (transport, peer) = InMemoryTransport.pair()
        let serving = Task {
            _ = await simulator.serve(input: peer.input, output: { peer.write($0) })
        }
        return Harness(client: RPCClient(transport: transport, defaultTimeout: timeout), peer: peer, serving: serving)
    }

    static var noCard: SimulatorScript {
        var s = SimulatorScript.default
        s.card = nil
        return s
    }

    @Test func getInfoInReady() async throws {
        let h = try Self.harness()
        let reply = try await h.client.send(GetInfo())
        #expect(reply.status == .success)
        #expect(reply.response?.state == .ready)
        #expect(reply.response?.serialNumber != nil)
        await h.client.close()
    }

    // The terminal's own timeout: WaitCard with no card answers −2 (a status, not a link error). The terminal answers
    // after 0.1 s (10 s × 0.01); the client waits up to a minute, not its usual 15 s: twice, in a full parallel run
    // of the suite on 2 cores, the answer came after more than 15 s (cause not found; never alone or under CPU load).
    @Test func waitCardWithoutACardTimesOutOnTheTerminal() async throws {
        let h = try Self.harness(script: Self.noCard)
        let reply = try await h.client.send(WaitCard(readers: [.icc], timeoutSeconds: 10), timeout: .seconds(60))
        #expect(reply.status == .timeout)
        #expect(reply.response == nil)
        await h.client.close()
    }

    // The client's own deadline when the terminal takes longer than we allow.
    @Test func clientDeadline() async throws {
        let h = try Self.harness(script: Self.noCard)
        await #expect(throws: LinkError(.timeout, "")) {
            try await h.client.send(WaitCard(readers: [.icc], timeoutSeconds: 60), timeout: .milliseconds(100))
        }
        await h.client.close()
    }

    // One deadline watchdog serves every command: a short deadline after a long one still fires on time. The terminal
    // answers its own −2 after 0.6 s (60 s × 0.01); a watchdog left sleeping on the first command's 30 s deadline
    // would let that answer through instead of the client's timeout.
    @Test func aShortDeadlineAfterALongOneFires() async throws {
        let h = try Self.harness(script: Self.noCard, timeout: .seconds(30))
        #expect(try await h.client.send(GetInfo(tags: [0xC4])).status == .success)
        await #expect(throws: LinkError(.timeout, "")) {
            try await h.client.send(WaitCard(readers: [.icc], timeoutSeconds: 60), timeout: .milliseconds(100))
        }
        await h.client.close()
    }

    // CancelAll while WaitCard is pending: the pending command answers −32 (spec §5.2), CancelAll itself 0.
    @Test func cancelAllEndsAPendingWaitCard() async throws {
        let h = try Self.harness(script: Self.noCard)
        let client = h.client
        let waiting = Task { try await client.send(WaitCard(readers: [.icc], timeoutSeconds: 200)) }
        while !(await client.hasPendingCommand) { await Task.yield() }
        let cancelStatus = try await client.cancelAll()
        #expect(cancelStatus == .success)
        let reply = try await waiting.value
        #expect(reply.status == .cancelled)
        // The link is usable afterwards.
        #expect(try await client.send(GetInfo(tags: [0xC4])).response?.state == .ready)
        await client.close()
    }

    // `onSent` says when the command is pending, so a CancelAll sent then reaches it (the payment engine's cancel of
    // a card wait waits for this, not in a loop); a command refused before that (busy) never calls it.
    @Test func onSentSaysWhenACancelAllReachesTheCommand() async throws {
        let h = try Self.harness(script: Self.noCard)
        let client = h.client
        let (sent, signal) = AsyncStream<Void>.makeStream()
        let waiting = Task {
            try await client.send(WaitCard(readers: [.icc], timeoutSeconds: 200), onSent: { signal.yield() })
        }
        for await _ in sent { break }
        #expect(await client.hasPendingCommand)
        let (refusedSent, refusedSignal) = AsyncStream<Void>.makeStream()
        await #expect(throws: LinkError(.busy, "")) {
            try await client.send(GetInfo(tags: [0xC4]), onSent: { refusedSignal.yield() })
        }
        refusedSignal.finish()
        var refusedCalls = 0
        for await _ in refusedSent { refusedCalls += 1 }
        #expect(refusedCalls == 0)
        #expect(try await client.cancelAll() == .success)
        #expect(try await waiting.value.status == .cancelled)
        await client.close()
    }

    // Swift task cancellation (Ctrl-C) maps onto CancelAll: the caller gets the terminal's −32.
    @Test func taskCancellationSendsCancelAll() async throws {
        let h = try Self.harness(script: Self.noCard)
        let client = h.client
        let waiting = Task { try await client.send(WaitCard(readers: [.icc], timeoutSeconds: 200)) }
        while !(await client.hasPendingCommand) { await Task.yield() }
        waiting.cancel()
        let reply = try await waiting.value
        #expect(reply.status == .cancelled)
        await client.close()
    }

    // A link that drops in the middle of a command fails it at once with `.disconnected`.
    @Test func droppedLinkDuringACommand() async throws {
        // Client deadline 300 s: the `.disconnected` error (not `.timeout`) shows the drop was seen at once.
        let h = try Self.harness(script: Self.noCard, timeout: .seconds(300))
        let client = h.client
        let waiting = Task { try await client.send(WaitCard(readers: [.icc], timeoutSeconds: 200)) }
        while !(await client.hasPendingCommand) { await Task.yield() }
        h.peer.disconnect()
        await #expect(throws: LinkError(.disconnected, "")) { try await waiting.value }
        #expect(!(await client.isConnected))
    }

    // −287 for a payment command in READY (spec §2.7), as a status value.
    @Test func badTerminalStateIsAStatus() async throws {
        let h = try Self.harness()
        let reply = try await h.client.send(GetPlainTag(tags: [Tag(0x9F27)]))
        #expect(reply.status == .badTerminalState)
        await h.client.close()
    }

    // Enter a secure session, then read a SIGNED_CIPHERED GetInfo: the secured layout of spec §2.3, a MAC that
    // verifies under the MAC-response variant of the X9.24 test BDK, and data that decrypts to the TLV.
    @Test func securedResponseMACVerifiesWithTheX924Keys() async throws {
        let h = try Self.harness()
        let enter = try await h.client.send(EnterSecureSession())
        #expect(enter.sequence == 0)
        let ksn = try #require(enter.response?.ksn)
        #expect(Hex.encode(ksn) == "FFFF9876543210E00001")
        #expect(await h.client.isSecured)

        let reply = try await h.client.send(GetInfo(tags: [0xC4, 0xD1]))
        #expect(reply.sequence == 1)
        #expect(reply.isCiphered && reply.succeeded && reply.response == nil)
        let envelope = try #require(reply.frame.envelope)
        #expect(envelope.mac.count == 4)
        let macKey = try DUKPT.sessionKey(bdk: CryptoChoices.testBDK, ksn: ksn, variant: .macResponse)
        #expect(try RetailMAC.mac4(key: macKey, data: reply.frame.macInput) == envelope.mac)
        // A flipped data bit breaks the MAC.
        var tampered = reply.frame
        tampered.data[0] ^= 0x01
        #expect(try RetailMAC.mac4(key: macKey, data: tampered.macInput) != envelope.mac)
        // SIGNED_CIPHERED: the data is TDES-CBC under the data-response key (spec §12.3).
        let plain = try SRED.decrypt(ciphertext: reply.frame.data, bdk: CryptoChoices.testBDK, ksn: try KSN(bytes: ksn))
        let tlvs = try TLVParser.parse(plain, rules: .terminal)
        #expect(tlvs[Tag(0xC4)] == [TerminalState.secured.rawValue])

        let exit = try await h.client.send(ExitSecureSession())
        #expect(exit.status == .success)
        #expect(!(await h.client.isSecured))
        await h.client.close()
    }
}

/// `info` after a clean exit sends GetInfo alone, on the session record's word (spec §8.7): when another host left
/// the terminal in a secure session since, the ciphered answer says so, and the terminal is reset and asked again.
@Suite struct ConfirmingIdleTests {
    @Test func aSecureSessionLeftByAnotherHostIsResetAndGetInfoAskedAgain() async throws {
        let simulator = try TerminalSimulator(configuration: SimulatorConfiguration(timeScale: 0.01))
        // The other host: its link opens a secure session and goes away without closing it.
        let (otherTransport, otherPeer) = InMemoryTransport.pair()
        let otherServing = Task { _ = await simulator.serve(input: otherPeer.input, output: { otherPeer.write($0) }) }
        let other = RPCClient(transport: otherTransport, defaultTimeout: .seconds(30))
        #expect(try await other.send(EnterSecureSession()).status == .success)
        await other.close()
        await otherServing.value

        // This host's record says READY, numbering at 5: GetInfo alone, answered ciphered, then the reset.
        let (transport, peer) = InMemoryTransport.pair()
        let serving = Task { _ = await simulator.serve(input: peer.input, output: { peer.write($0) }) }
        let client = RPCClient(
            transport: transport, defaultTimeout: .seconds(30), rules: LinkRules(secured: false, nextSequence: 5))
        let (reply, reset) = try await client.sendConfirmingIdle(GetInfo())
        #expect(reset)
        #expect(!reply.isCiphered && reply.response?.state == .ready)
        #expect(await client.commandsSent == 4)  // GetInfo, CancelAll, ExitSecureSession, GetInfo
        await client.close()
        await serving.value
    }

    @Test func anIdleTerminalAnswersTheFirstGetInfo() async throws {
        let simulator = try TerminalSimulator(configuration: SimulatorConfiguration(timeScale: 0.01))
        let (transport, peer) = InMemoryTransport.pair()
        let serving = Task { _ = await simulator.serve(input: peer.input, output: { peer.write($0) }) }
        let client = RPCClient(
            transport: transport, defaultTimeout: .seconds(30), rules: LinkRules(secured: false, nextSequence: 5))
        let (reply, reset) = try await client.sendConfirmingIdle(GetInfo())
        #expect(!reset && reply.response?.state == .ready)
        #expect(await client.commandsSent == 1)
        await client.close()
        await serving.value
    }
}
