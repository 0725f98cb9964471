import Foundation
import Testing

/// `ucube sim` and `simulate --json`'s stdin steer a running simulator (issue 40 item 4), and `ucube test --devices`
/// over `simulate --fleet` steers each terminal to each case's card (issue 41 item 4).
@Suite(.serialized) struct SteeringEndToEndTests {
    static func sandbox() throws -> UCubeSandbox {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        return sandbox
    }

    /// Reads `pipe` until `text` has appeared `count` times in all that was read; returns all of it.
    static func read(_ pipe: Pipe, until text: String, count: Int, after seen: String) async -> String {
        var all = seen
        while all.components(separatedBy: text).count - 1 < count {
            let more = await UCubeSandbox.readUntil(pipe, contains: text)
            guard !more.isEmpty else { break }
            all += more
        }
        return all
    }

    /// The payment summaries in a shell's output, one per `round trips:` line.
    static func payments(_ output: String) -> [String] {
        output.components(separatedBy: "round trips:").dropLast()
    }

    @Test func oneConnectionWhileTheCardGoesFromChipToContactlessToPulledOut() async throws {
        let sandbox = try Self.sandbox()
        let (server, port) = try await sandbox.startSimulator()
        defer { server.terminate() }
        let device = "tcp://127.0.0.1:\(port)"
        let input = Pipe.cloexec()
        let shell = try sandbox.startCapturing(["--device", device, "shell"], stdin: input)
        defer { kill(shell.process.processIdentifier, SIGKILL) }

        input.fileHandleForWriting.write(Data("pay 1\n".utf8))
        var out = await Self.read(shell.stdout, until: "round trips:", count: 1, after: "")
        #expect(Self.payments(out).last?.contains("entry mode: icc") == true, "\(out)")

        let tapped = try await sandbox.run(["sim", "card", "visa-contactless"])
        #expect(tapped.status == 0, "\(tapped.stderr)")
        #expect(
            tapped.stdout.contains("card: visa-contact [contact,contactless] → visa-contactless [contactless]"),
            "\(tapped.stdout)")
        input.fileHandleForWriting.write(Data("pay 2\n".utf8))
        out = await Self.read(shell.stdout, until: "round trips:", count: 2, after: out)
        let second = try #require(Self.payments(out).last)
        #expect(second.contains("status: APPROVED") && second.contains("entry mode: nfc"), "\(second)")
        #expect(second.contains("476173******0127"), "the contactless card's masked PAN: \(second)")

        // The app's link is the same one: one connection so far, and it is up.
        let between = try await Self.status(sandbox)
        #expect(between["connected"] as? Bool == true && between["connections"] as? Int == 1, "\(between)")

        let pulled = try await sandbox.run(["--device", device, "sim", "card", "card-removed"])
        #expect(pulled.status == 0, "\(pulled.stderr)")
        input.fileHandleForWriting.write(Data("pay 3\n".utf8))
        out = await Self.read(shell.stdout, until: "round trips:", count: 3, after: out)
        let third = try #require(Self.payments(out).last)
        #expect(third.contains("status: ERROR"), "\(third)")

        let state = try await Self.status(sandbox)
        #expect(state["card"] as? String == "card-removed")
        #expect(state["connections"] as? Int == 1, "one link for the three payments: \(state)")
        try input.fileHandleForWriting.close()
        _ = await shell.process.exit()
    }

    /// `ucube sim status --json`'s state.
    static func status(_ sandbox: UCubeSandbox) async throws -> [String: Any] {
        let status = try await sandbox.run(["--json", "sim", "status"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        return try #require(json["status"] as? [String: Any])
    }

    @Test func jsonLinesOnStdinSteerAndAreAnswered() async throws {
        let sandbox = try Self.sandbox()
        let input = Pipe.cloexec()
        let (process, out, _) = try sandbox.startCapturing(
            [
                "--json", "simulate", "--listen", "127.0.0.1:0", "--state-dir",
                sandbox.directory.appendingPathComponent("sim").path,
            ], stdin: input)
        defer { process.terminate() }
        var seen = await UCubeSandbox.readUntil(out, contains: #""event":"listening""#)
        input.fileHandleForWriting.write(Data((#"{"sim": ["card", "visa-contactles"]}"# + "\n").utf8))
        seen = await Self.read(out, until: #""event":"sim""#, count: 1, after: seen)
        input.fileHandleForWriting.write(Data((#"{"sim": "card visa-contactless"}"# + "\n").utf8))
        input.fileHandleForWriting.write(Data("not json\n".utf8))
        seen = await Self.read(out, until: #""event":"sim""#, count: 3, after: seen)
        let answers = seen.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["event"] as? String == "sim" }
        #expect(answers.count == 3, "\(seen)")
        #expect(answers[0]["ok"] as? Bool == false && answers[0]["exit"] as? Int == 64)
        #expect((answers[0]["hint"] as? String)?.contains("did you mean 'visa-contactless'") == true, "\(answers[0])")
        #expect(answers[1]["ok"] as? Bool == true)
        #expect((answers[1]["status"] as? [String: Any])?["card"] as? String == "visa-contactless")
        #expect(answers[2]["ok"] as? Bool == false)

        let status = try await sandbox.run(["sim", "status"])
        #expect(
            status.status == 0 && status.stdout.contains("card: visa-contactless [contactless]"), "\(status.stdout)")
    }

    @Test func refusalsAndNoSimulator() async throws {
        let sandbox = try Self.sandbox()
        let typo = try await sandbox.run(["sim", "card", "mastercard-contactless"])
        #expect(typo.status == 64, "\(typo.stderr)")
        #expect(typo.stderr.contains("did you mean 'mc-contactless-online'"), "\(typo.stderr)")
        for bad in [
            ["sim", "pin", "12"], ["sim", "battery", "101"], ["sim", "fault", "wobble@1"], ["sim", "crad", "x"],
        ] {
            #expect(try await sandbox.run(bad).status == 64, "\(bad)")
        }
        let nobody = try await sandbox.run(["sim", "status"])
        #expect(nobody.status == 69, "\(nobody.stderr)")

        let (server, port) = try await sandbox.startSimulator()
        defer { server.terminate() }
        let socket = sandbox.directory.appendingPathComponent("run/ucube/sim-tcp___127_0_0_1_\(port).sock").path
        let attributes = try FileManager.default.attributesOfItem(atPath: socket)
        #expect((attributes[.posixPermissions] as? Int ?? 0o777) & 0o077 == 0, "owner-only: \(attributes)")
        let battery = try await sandbox.run(["sim", "battery", "5"])
        #expect(battery.status == 0 && battery.stdout.contains("battery: 87 % → 5 %"), "\(battery.stdout)")
        let info = try await sandbox.run(["--device", "tcp://127.0.0.1:\(port)", "info"])
        #expect(info.stdout.contains("battery: 5%"), "\(info.stdout)")
    }

    /// Issue 41 item 4: the shipped suite over a simulated fleet passes, each terminal steered to each case's card.
    @Test func theShippedSuitePassesOverASimulatedFleet() async throws {
        let sandbox = try Self.sandbox()
        let fleet = try await FleetRunEndToEndTests.startFleet(sandbox, count: 2, [])
        defer { fleet.process.terminate() }
        let suite = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Suites/payments.json").path
        let run = try await sandbox.run(
            ["--json", "--rpc-timeout", "5", "test", suite, "--devices", fleet.file], timeout: .seconds(600))
        let cases = FleetRunEndToEndTests.events(run.stdout).filter { $0["event"] as? String == "case" }
        let failed = cases.filter { $0["result"] as? String != "passed" }
        #expect(run.status == 0, "\(failed.map { "\($0["case"] ?? "?"): \($0["error"] ?? "?")" }) \(run.stderr)")
        #expect(cases.count == 2 * 42 && failed.isEmpty, "\(cases.count) cases, failed: \(failed)")
    }

    /// A terminal nobody can steer in a fleet run: each case is a SKIP with the reason, not a failure.
    @Test func anUnsteerableTerminalSkipsEachCaseWithTheReason() async throws {
        let sandbox = try Self.sandbox()
        let elsewhere = sandbox.directory.appendingPathComponent("other-run").path
        let saved = sandbox.environment["XDG_RUNTIME_DIR"]
        sandbox.environment["XDG_RUNTIME_DIR"] = elsewhere  // its steering socket is where this user's test won't look
        let (server, port) = try await sandbox.startSimulator()
        sandbox.environment["XDG_RUNTIME_DIR"] = saved
        defer { server.terminate() }
        let suite = try TestSuiteEndToEndTests.write(
            """
            {"name": "fleet", "cases": [{"name": "chip", "card": "visa-contact", "request": {"amount": "5.00"},
              "expect": {"status": "APPROVED"}}]}
            """, in: sandbox)
        let devices = sandbox.directory.appendingPathComponent("devices").path
        try "tcp://127.0.0.1:\(port)\n".write(toFile: devices, atomically: true, encoding: .utf8)
        let run = try await sandbox.run(["--json", "test", suite, "--devices", devices, "--parallel", "1"])
        let cases = FleetRunEndToEndTests.events(run.stdout).filter { $0["event"] as? String == "case" }
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        #expect(!cases.isEmpty && cases.allSatisfy { $0["result"] as? String == "not-run" }, "\(cases)")
        #expect(
            cases.allSatisfy { ($0["error"] as? String)?.contains("cannot be set up unattended") == true }, "\(cases)")
    }
}
