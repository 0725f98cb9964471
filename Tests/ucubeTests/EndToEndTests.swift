import Foundation
import Testing
import UCubeCrypto
import UCubeProtocol

/// The "done when" checks, through the built binary.
@Suite(.serialized) struct EndToEndTests {
    @Test func infoOnTheSimulator() async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run("--device sim info")
        #expect(run.status == 0, "\(run.stderr)")
        for label in [
            "serial number: 202401001", "part number: uCubeTouchUCUBE", "firmware (SVPP): 6.0.0.54", "state: READY",
            "battery: ",
        ] {
            #expect(run.stdout.contains(label), "missing \(label) in \(run.stdout)")
        }
        let json = try await sandbox.run("--device sim rpc get-info --json")
        #expect(json.status == 0, "\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let response = object?["response"] as? [String: Any]
        #expect(response?["serialNumber"] as? String == "202401001")
        #expect(response?["partNumber"] as? String == "uCubeTouchUCUBE")
        #expect(response?["state"] as? String == "READY")
        #expect(response?["firmwareVersion"] as? String == "6.0.0.54")
        #expect(response?["batteryPercent"] as? Int != nil)
    }

    /// Trace lines "> 02 00 …" / "< 02 00 …" as byte arrays.
    static func tracedFrames(_ stderr: String, direction: Character) -> [[UInt8]] {
        stderr.split(separator: "\n").filter { $0.first == direction }.compactMap {
            try? Hex.decode(String($0.dropFirst(2)))
        }
    }

    // spec §2: over TCP, --trace shows frames identical byte for byte to the layout: STX, LEN, SEQ, CMD, payload, CRC
    // (CRC-16/XMODEM), ETX.
    @Test func traceOverTCPShowsTheSpecLayout() async throws {
        let sandbox = try UCubeSandbox()
        let (server, port) = try await sandbox.startSimulator()
        defer { server.terminate() }
        let run = try await sandbox.run([
            "--device", "tcp://127.0.0.1:\(port)", "--trace", "rpc", "raw", "5001", "C1 C4 D1",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let sent = Self.tracedFrames(run.stderr, direction: ">")
        let received = Self.tracedFrames(run.stderr, direction: "<")
        // The spec §2.6 worked frame, exactly, after the resynchronisation (CancelAll, ExitSecureSession) that
        // a link with no session file gets, which numbers commands from 0 again.
        #expect(sent.count == 3 && sent[0][4...5] == [0x02, 0x02] && sent[1][4...5] == [0x51, 0x02], "\(sent)")
        #expect(sent.last == (try Hex.decode("02 00 03 00 50 01 C1 C4 D1 AB 0F 03")))
        let reply = try #require(received.last)
        #expect(reply[0] == 0x02 && reply.last == 0x03)
        let len = Int(reply[1]) << 8 | Int(reply[2])
        #expect(reply.count == len + 9)
        #expect(reply[3] == 0x00)  // SEQ echoed
        #expect(Array(reply[4...5]) == [0x50, 0x01])
        let crc = CRC16.xmodem(reply[1..<(reply.count - 3)])
        #expect(Array(reply[(reply.count - 3)...(reply.count - 2)]) == [UInt8(crc >> 8), UInt8(crc & 0xFF)])
    }

    // Enter a secure session, then a secured GetInfo: the trace shows the secured layout of spec §2.3 whose MAC
    // verifies under the X9.24 test BDK's MAC-response key for the KSN the session returned.
    @Test func securedLayoutWithAVerifiedMAC() async throws {
        let sandbox = try UCubeSandbox()
        let enter = try await sandbox.run("--device sim --json rpc enter-secure-session")
        #expect(enter.status == 0, "\(enter.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(enter.stdout.utf8)) as? [String: Any]
        let ksnHex = try #require((object?["response"] as? [String: Any])?["ksn"] as? String)
        #expect(ksnHex == "FFFF9876543210E00001")

        let run = try await sandbox.run("--device sim --trace rpc get-info C4 D1")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("ciphered"))
        // First the check that the kept secure session is open: GetInfo with no tag, plain, SEQ 1 (after 0x5101's
        // SEQ 0), answered in the SECURED layout (crypto header + status: LEN 3).
        let frames = Self.tracedFrames(run.stderr, direction: ">")
        #expect(frames.first == [0x02, 0x00, 0x00, 0x01, 0x50, 0x01] + Array(frames.first?.suffix(3) ?? []))
        #expect(Self.tracedFrames(run.stderr, direction: "<").first?[1...2] == [0x00, 0x03])
        let sent = try #require(frames.last)
        // Secured command: LEN = 1 + payload + 4; crypto header 7F; zero MAC (spec §2.3); SEQ 2.
        #expect(sent == [0x02, 0x00, 0x07, 0x02, 0x50, 0x01, 0x7F, 0xC4, 0xD1, 0, 0, 0, 0] + Array(sent.suffix(3)))
        let bytes = try #require(Self.tracedFrames(run.stderr, direction: "<").last)
        var decoder = FrameDecoder()
        decoder.append(bytes)
        let response = try ResponseFrame(raw: try #require(try decoder.next()), secured: true)
        #expect(response.status == .success)
        let mac = try #require(response.envelope?.mac)
        let key = try DUKPT.sessionKey(bdk: CryptoChoices.testBDK, ksn: try KSN(hex: ksnHex), variant: .macResponse)
        #expect(try RetailMAC.mac4(key: key, data: response.macInput) == mac)

        let exit = try await sandbox.run("--device sim rpc exit-secure-session")
        #expect(exit.status == 0, "\(exit.stderr)")
        #expect(try await sandbox.run("--device sim info").stdout.contains("state: READY"))
    }

    // Bad input from the command line: a clear message and exit 64.
    @Test(arguments: [
        ["rpc", "frobnicate"],
        ["frobnicate"],
        ["rpc", "raw", "5001", "ABC"],
        ["rpc", "raw", "zz"],
        ["rpc", "raw", "5161", String(repeating: "00", count: 2100)],
        ["--device", "tcp://127.0.0.1:99999", "info"],
        ["--rpc-timeout", "-1", "info"],
        ["decode", "ABC"],
        ["pay", "10", "--card", "nope"],
        ["simulate", "--card", "nope"],
        ["pay", "10", "--authorize", "maybe"],
    ])
    func badCommandLines(_ arguments: [String]) async throws {
        let run = try await UCubeSandbox().run(arguments)
        #expect(run.status == 64, "exit \(run.status) for \(arguments.prefix(4)): \(run.stderr)")
        #expect(!run.stderr.isEmpty)
        #expect(!run.stderr.contains("Fatal error"))
    }

    @Test func undecodableDataIsExit65() async throws {
        let run = try await UCubeSandbox().run(["decode", "02 00 03 00 50 01 C1 C4 D1 AB 0E 03"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("CRC"))
    }

    // Bad bytes from the link: each ends with a clear message and the documented exit code.
    @Test func hostileTerminal() async throws {
        let sandbox = try UCubeSandbox()
        let cases: [(String, Int32, String, @Sendable (RawFrame) -> [UInt8]?)] = [
            (
                "wrong CRC", 6, "CRC",
                { f in
                    var b = FakeTerminal.goodResponse(to: f); b[b.count - 2] ^= 0x55; return b
                }
            ),
            (
                "bad ETX", 6, "ETX",
                { f in
                    var b = FakeTerminal.goodResponse(to: f); b[b.count - 1] = 0x7E; return b
                }
            ),
            ("LEN over the limit", 6, "2068", { f in [0x02, 0x09, 0x00, f.sequence, 0x50, 0x01] }),
            (
                "wrong command id", 6, "while",
                { f in try! ResponseFrame(sequence: f.sequence, command: .waitCard, status: .success).encoded() }
            ),
            ("hang-up", 5, "link", { _ in nil }),
            (
                "unknown command 0x8000", 3, "not recognise",
                { f in
                    try! ResponseFrame(sequence: f.sequence, command: .unrecognised, status: .unknownCommand).encoded()
                }
            ),
        ]
        for (name, code, message, answer) in cases {
            let fake = try FakeTerminal(answer: answer)
            let run = try await sandbox.run(
                ["--device", "tcp://127.0.0.1:\(fake.port)", "--rpc-timeout", "5", "rpc", "raw", "5001", "C4"],
                timeout: .seconds(20))
            #expect(run.status == code, "\(name): exit \(run.status), \(run.stderr)")
            #expect(run.stderr.contains(message), "\(name): \(run.stderr)")
        }
    }

    @Test func silentTerminalTimesOut() async throws {
        let fake = try FakeTerminal(answer: { _ in [] })
        let run = try await UCubeSandbox().run(
            ["--device", "tcp://127.0.0.1:\(fake.port)", "--rpc-timeout", "0.5", "info"], timeout: .seconds(20))
        #expect(run.status == 4, "\(run.stderr)")
        #expect(run.stderr.contains("no answer"))
    }
}
