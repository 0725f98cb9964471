import Foundation
import Testing
import UCubeLog
import UCubeProtocol
import UCubeSimulator
import ZIPFoundation

/// Terminal management through the built binary, against `ucube simulate --tms` (HTTPS, its own CA, mutual TLS) and
/// the terminal simulator: the README's commands, end to end (issue 5).
@Suite(.serialized) struct TMSEndToEndTests {
    /// `ucube simulate --tms 127.0.0.1:0` in the background; returns it, its URL and its CA file.
    static func startTMS(
        _ sandbox: UCubeSandbox, extra: [String] = []
    ) async throws -> (process: Process, url: String, ca: String, export: String) {
        let (process, out, _) = try sandbox.startCapturing(["simulate", "--tms", "127.0.0.1:0"] + extra)
        let text = await UCubeSandbox.readUntil(out, contains: "export ")
        let lines = text.split(separator: "\n")
        guard let url = lines.first(where: { $0.hasPrefix("tms listening on ") })?.split(separator: " ").last,
            let ca = lines.first(where: { $0.hasPrefix("tms ca ") })?.dropFirst("tms ca ".count),
            let export = lines.first(where: { $0.hasPrefix("export ") })
        else {
            process.terminate()
            throw SandboxError(message: "the TMS simulator printed no address: \(text)")
        }
        return (process, String(url), String(ca), String(export))
    }

    static func stop(_ process: Process) async {
        process.terminate()
        _ = await process.exit()
    }

    /// spec §10.2: against `simulate --tms-dialect 2020` (a TMS that knows only the 2020 SDK's paths), register,
    /// update and send-logs each take the current form once, get 404, and go on in the 2020 form, saying so in the log;
    /// register then sends the state, as the 2020 SDK did. The default TMS takes the current forms.
    @Test(arguments: ["2020", "both"])
    func theDialectsEndToEnd(_ dialect: String) async throws {
        let sandbox = try UCubeSandbox()
        let tms = try await Self.startTMS(sandbox, extra: ["--tms-dialect", dialect])
        defer { tms.process.terminate() }
        sandbox.environment["UCUBE_TMS_URL"] = tms.url
        sandbox.environment["UCUBE_TMS_CA"] = tms.ca
        let register = try await sandbox.run("--device sim --json mdm-register")
        #expect(register.status == 0, "\(register.stderr)")
        let output = try JSONSerialization.jsonObject(with: Data(register.stdout.utf8)) as? [String: Any]
        #expect(output?["api"] as? String == (dialect == "2020" ? "2020" : "current"), "\(register.stdout)")
        let update = try await sandbox.run("--device sim mdm-update")
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.stdout.contains("SVPP firmware 6.0.0.54 → 6.0.1.0: installed"), "\(update.stdout)")
        // stderr is a pipe here, as in a CI log: plain progress lines, the last one at 100 %, and no bar.
        #expect(update.stderr.contains("100%, "), "\(update.stderr)")
        #expect(!update.stderr.contains("["), "\(update.stderr)")
        // Read before send-logs, which deletes the local logs once the TMS has them.
        let log = sandbox.directory.appendingPathComponent("state/ucube/logs/messages.log")
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        let fallbacks = text.split(separator: "\n").filter {
            $0.contains("NOTICE") && $0.contains("using the 2020 form")
        }
        // One per request kind and process: register in mdm-register, binary in mdm-update (config has one form).
        #expect(fallbacks.count == (dialect == "2020" ? 2 : 0), "\(fallbacks)")
        #expect(fallbacks.allSatisfy { $0.contains("HTTP 404") })
        // A 2020-only TMS answers the current logs form 404: the logs reach it only through the fallback.
        let send = try await sandbox.run("--device sim send-logs")
        #expect(send.status == 0, "\(send.stderr)")
        let received = sandbox.directory.appendingPathComponent("tms-sim/received-logs")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: received.path).filter { $0.hasSuffix(".zip") }.count
                == 1)
        await Self.stop(tms.process)
    }

    @Test func registerPlanUpdateAndSendLogs() async throws {
        let sandbox = try UCubeSandbox()
        let tms = try await Self.startTMS(sandbox)
        defer { tms.process.terminate() }
        #expect(tms.url.hasPrefix("https://127.0.0.1:"))
        #expect(FileManager.default.fileExists(atPath: tms.ca))
        sandbox.environment["UCUBE_TMS_URL"] = tms.url
        sandbox.environment["UCUBE_TMS_CA"] = tms.ca

        // Not registered yet: the status says so, and an update stops before the TMS with exit 8.
        let before = try await sandbox.run("--device sim mdm-register --status")
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdout.contains("is not registered"))
        let early = try await sandbox.run("--device sim mdm-update --plan")
        #expect(early.status == 8)
        #expect(early.stderr.contains("mdm-register"), "\(early.stderr)")

        let register = try await sandbox.run("--device sim mdm-register")
        #expect(register.status == 0, "\(register.stderr)")
        let identity = sandbox.directory.appendingPathComponent("config/ucube/tms/202401001.p12").path
        let mode = try FileManager.default.attributesOfItem(atPath: identity)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        let status = try await sandbox.run("--device sim --json mdm-register --status")
        #expect(
            status.stdout.contains(#""registered" : true"#) || status.stdout.contains(#""registered": true"#),
            "\(status.stdout)")

        // The plan: the SVPP firmware is mandatory (below min_version), the two EMV configurations optional.
        let plan = try await sandbox.run("--device sim mdm-update --plan")
        #expect(plan.status == 0, "\(plan.stderr)")
        let rows = plan.stdout.split(separator: "\n").map(String.init)
        #expect(rows.count == 4, "\(plan.stdout)")
        #expect(
            rows.contains {
                $0.hasPrefix("SVPP firmware") && $0.contains("6.0.0.54") && $0.contains("6.0.1.0") && $0.contains("yes")
                    && $0.hasSuffix("install")
            })
        #expect(
            rows.contains {
                $0.hasPrefix("ICC EMV configuration") && $0.contains("1.0.0.5") && $0.contains("1.0.0.6")
                    && $0.contains("--all")
            })
        #expect(
            rows.contains {
                $0.hasPrefix("NFC EMV configuration") && $0.contains("1.0.0.4") && $0.contains("1.0.0.5")
                    && $0.contains("--all")
            })
        let unchanged = try await sandbox.run("--device sim info")
        #expect(unchanged.stdout.contains("firmware (SVPP): 6.0.0.54"))

        // The default installs the mandatory item only; the terminal reboots and reports the new firmware.
        let mandatory = try await sandbox.run("--device sim mdm-update")
        #expect(mandatory.status == 0, "\(mandatory.stderr)")
        #expect(mandatory.stdout.contains("SVPP firmware 6.0.0.54 → 6.0.1.0: installed"), "\(mandatory.stdout)")
        #expect(!mandatory.stdout.contains("ICC"))
        #expect(mandatory.stderr.contains("waiting for the terminal to reboot"))

        // --all with --json: progress and one verdict per item as JSON lines.
        let rest = try await sandbox.run("--device sim --json mdm-update --all")
        #expect(rest.status == 0, "\(rest.stderr)")
        let events = rest.stdout.split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        #expect(events.allSatisfy { $0 != nil }, "every stdout line is a JSON object: \(rest.stdout)")
        let items = events.compactMap { $0 }.filter { $0["event"] as? String == "item" }
        #expect(items.map { $0["result"] as? String } == ["installed", "installed"])
        #expect(items.map { $0["now"] as? String } == ["1.0.0.6", "1.0.0.5"])
        #expect(
            events.compactMap { $0 }.contains {
                $0["event"] as? String == "progress" && ($0["percent"] as? Double) == 100
            })
        #expect(events.last??["event"] as? String == "done")

        let info = try await sandbox.run("--device sim info")
        #expect(info.stdout.contains("firmware (SVPP): 6.0.1.0"))
        #expect(info.stdout.contains("EMV ICC config: 1.0.0.6"))
        #expect(info.stdout.contains("EMV NFC config: 1.0.0.5"))

        let again = try await sandbox.run("--device sim mdm-update --all")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("nothing to do"), "\(again.stdout)")
        let downloads = sandbox.directory.appendingPathComponent("state/ucube/downloads").path
        #expect(
            (try? FileManager.default.contentsOfDirectory(atPath: downloads))?.isEmpty ?? true, "downloads are deleted")

        // send-logs: the bundle reaches the TMS, and the local logs go only then.
        let send = try await sandbox.run("--device sim send-logs")
        #expect(send.status == 0, "\(send.stderr)")
        #expect(send.stdout.contains("for terminal 202401001"))
        let received = sandbox.directory.appendingPathComponent("tms-sim/received-logs")
        let zips = try FileManager.default.contentsOfDirectory(atPath: received.path).filter { $0.hasSuffix(".zip") }
        #expect(zips.count == 1)
        if let zip = zips.first {
            let archive = try Archive(url: received.appendingPathComponent(zip), accessMode: .read)
            var text = ""
            for entry in archive { _ = try archive.extract(entry) { text += String(decoding: $0, as: UTF8.self) } }
            #expect(text.contains("mdm-update"))
            #expect(!Masking.containsUnmaskedPAN(text))
        }
        let messages = sandbox.directory.appendingPathComponent("state/ucube/logs/messages.log").path
        let left = (try? String(contentsOfFile: messages, encoding: .utf8)) ?? ""
        #expect(!left.contains("mdm-update"), "the sent lines were deleted")

        // --unregister forgets the identity; an update is then refused before any download.
        let unregister = try await sandbox.run("--device sim mdm-register --unregister")
        #expect(unregister.status == 0)
        #expect(!FileManager.default.fileExists(atPath: identity))
    }

    /// A client certificate another TMS issued is refused by this one's mutual TLS: exit 8 with the URL, nothing
    /// installed.
    @Test func aForeignClientCertificateIsRefused() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_TMS_SIM_HOME"] = sandbox.directory.appendingPathComponent("other-tms").path
        let other = try await Self.startTMS(sandbox)
        let register = try await sandbox.run([
            "--device", "sim", "mdm-register", "--tms", other.url, "--tms-ca", other.ca,
        ])
        await Self.stop(other.process)
        #expect(register.status == 0, "\(register.stderr)")

        sandbox.environment["UCUBE_TMS_SIM_HOME"] = sandbox.directory.appendingPathComponent("tms-sim").path
        let tms = try await Self.startTMS(sandbox)
        defer { tms.process.terminate() }
        let update = try await sandbox.run([
            "--device", "sim", "mdm-update", "--all", "--tms", tms.url, "--tms-ca", tms.ca,
        ])
        #expect(update.status == 8, "\(update.stdout)\(update.stderr)")
        #expect(update.stderr.contains(tms.url), "\(update.stderr)")
        let info = try await sandbox.run("--device sim info")
        #expect(info.stdout.contains("firmware (SVPP): 6.0.0.54"))
    }

    /// Ctrl-C and a killed process in the middle of the Load blocks leave the old firmware running (exit 11 for
    /// Ctrl-C); a re-run installs the update. Over TCP with the Bluetooth Classic link model, so the load takes
    /// seconds and the signals land between blocks.
    @Test func interruptedUpdatesLeaveTheOldFirmwareAndARerunCompletes() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.05"
        let tms = try await Self.startTMS(sandbox)
        defer { tms.process.terminate() }
        sandbox.environment["UCUBE_TMS_URL"] = tms.url
        sandbox.environment["UCUBE_TMS_CA"] = tms.ca
        let (simulator, port) = try await sandbox.startSimulator(["--link-model", "classic"])
        defer { simulator.terminate() }
        let device = "tcp://127.0.0.1:\(port)"
        let register = try await sandbox.run(["--device", device, "mdm-register"])
        #expect(register.status == 0, "\(register.stderr)")

        for signal in [SIGINT, SIGKILL] {
            let (update, out, _) = try sandbox.startCapturing(["--device", device, "--json", "mdm-update"])
            // Wait until some blocks are loaded (a progress line past 0 bytes), then interrupt.
            _ = await UCubeSandbox.readUntil(out, contains: #""bytes":20400"#)
            kill(update.processIdentifier, signal)
            let status = await update.exit()
            if signal == SIGINT {
                #expect(status == 11, "Ctrl-C exits 11 (cancelled)")
            }
            let info = try await sandbox.run(["--device", device, "info"])
            #expect(
                info.stdout.contains("firmware (SVPP): 6.0.0.54"),
                "after signal \(signal): \(info.stdout)\(info.stderr)")
        }
        let rerun = try await sandbox.run(["--device", device, "mdm-update"], timeout: .seconds(120))
        #expect(rerun.status == 0, "\(rerun.stdout)\(rerun.stderr)")
        #expect(rerun.stdout.contains("SVPP firmware 6.0.0.54 → 6.0.1.0: installed"))
        let info = try await sandbox.run(["--device", device, "info"])
        #expect(info.stdout.contains("firmware (SVPP): 6.0.1.0"))
    }

    /// `--file IMAGE --signature SIG` without a TMS: a tampered image is refused by the terminal (exit 9, old
    /// firmware running), the intact one installs; the same image again loads nothing; an older one is refused.
    @Test func localImage() async throws {
        let sandbox = try UCubeSandbox()
        let (image, signature) = try sandbox.signedSVPPImage(payloadSize: 40_000)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: image))
        bytes[20_000] ^= 0x01
        let tampered = sandbox.directory.appendingPathComponent("tampered.bin").path
        try bytes.write(to: URL(fileURLWithPath: tampered))

        let refused = try await sandbox.run([
            "--device", "sim", "mdm-update", "--file", tampered, "--signature", signature,
        ])
        #expect(refused.status == 9, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stdout.contains("FAILED") && refused.stdout.contains("signature"), "\(refused.stdout)")
        #expect(try await sandbox.run("--device sim info").stdout.contains("firmware (SVPP): 6.0.0.54"))

        let installed = try await sandbox.run([
            "--device", "sim", "mdm-update", "--file", image, "--signature", signature,
        ])
        #expect(installed.status == 0, "\(installed.stdout)\(installed.stderr)")
        #expect(installed.stdout.contains("SVPP firmware 6.0.0.54 → 6.0.2.0: installed"), "\(installed.stdout)")
        #expect(try await sandbox.run("--device sim info").stdout.contains("firmware (SVPP): 6.0.2.0"))

        // The same image again: already installed, nothing loaded, success (a re-run after a kill meets this).
        let same = try await sandbox.run(["--device", "sim", "mdm-update", "--file", image, "--signature", signature])
        #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
        #expect(
            same.stdout.contains("SVPP firmware 6.0.2.0 → 6.0.2.0: already installed, nothing loaded"), "\(same.stdout)"
        )

        // An older image is loaded, and the terminal refuses it as not newer.
        let (older, olderSignature) = try sandbox.signedSVPPImage(payloadSize: 40_000, version: [6, 0, 1, 0])
        let downgrade = try await sandbox.run([
            "--device", "sim", "mdm-update", "--file", older, "--signature", olderSignature,
        ])
        #expect(downgrade.status == 9, "\(downgrade.stdout)\(downgrade.stderr)")
        #expect(downgrade.stdout.contains("IMAGE_NOT_NEWER"), "\(downgrade.stdout)")
    }

    /// `--json` names an item once: its progress events and its verdict carry the same `item`; a file without an
    /// image header has `"type":null` and `"to":null` (issue 12: the progress added the version, and such a file
    /// showed `"to":"?"` and `"type":-1`).
    @Test func localImageJSONEvents() async throws {
        let sandbox = try UCubeSandbox()
        let (image, signature) = try sandbox.signedSVPPImage(payloadSize: 40_000)
        let installed = try await sandbox.run([
            "--device", "sim", "--json", "mdm-update", "--file", image, "--signature", signature,
        ])
        #expect(installed.status == 0, "\(installed.stdout)\(installed.stderr)")
        let events = Self.events(installed.stdout)
        let progress = events.filter { $0["event"] as? String == "progress" }
        let item = try #require(events.first { $0["event"] as? String == "item" }, "\(installed.stdout)")
        #expect(!progress.isEmpty)
        #expect(
            Set(progress.compactMap { $0["item"] as? String }) == [item["item"] as? String ?? ""], "\(installed.stdout)"
        )
        #expect(item["item"] as? String == "SVPP firmware")
        #expect(item["to"] as? String == "6.0.2.0")
        #expect(item["type"] as? Int == 0)

        // The same image again: the terminal already runs it, so nothing is loaded and the run succeeds (a killed
        // fleet update's re-run meets such terminals).
        let again = try await sandbox.run([
            "--device", "sim", "--json", "mdm-update", "--file", image, "--signature", signature,
        ])
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        let current = try #require(
            Self.events(again.stdout).first { $0["event"] as? String == "item" }, "\(again.stdout)")
        #expect(current["result"] as? String == "current", "\(again.stdout)")
        #expect(current["from"] as? String == "6.0.2.0" && current["now"] as? String == "6.0.2.0", "\(again.stdout)")
        #expect(
            !Self.events(again.stdout).contains { $0["event"] as? String == "progress" },
            "nothing loaded: \(again.stdout)")

        // A file without the project's image header: the terminal refuses it; type and version are unknown.
        let raw = sandbox.directory.appendingPathComponent("vendor.bin")
        try Data(repeating: 0xA5, count: 5000).write(to: raw)
        let unknown = try await sandbox.run([
            "--device", "sim", "--json", "mdm-update", "--file", raw.path, "--signature", signature,
        ])
        #expect(unknown.status == 9, "\(unknown.stdout)\(unknown.stderr)")
        let verdict = try #require(
            Self.events(unknown.stdout).first { $0["event"] as? String == "item" }, "\(unknown.stdout)")
        #expect(verdict["item"] as? String == "vendor.bin")
        #expect(verdict["type"] is NSNull, "\(unknown.stdout)")
        #expect(verdict["to"] is NSNull, "\(unknown.stdout)")
        #expect(verdict["from"] is NSNull, "\(unknown.stdout)")
        #expect(!unknown.stdout.contains(#""to":"?""#), "\(unknown.stdout)")
        for event in Self.events(unknown.stdout) where event["event"] as? String == "progress" {
            #expect(event["item"] as? String == "vendor.bin")
        }
    }

    /// `simulate --tms` prints a line a shell can eval; `--print-env` prints only that line. The CA path is
    /// absolute and quoted even when $UCUBE_TMS_SIM_HOME is relative and has a space and a quote in it.
    @Test func simulateTMSPrintsAnExportLine() async throws {
        let sandbox = try UCubeSandbox()
        let tms = try await Self.startTMS(sandbox)
        defer { tms.process.terminate() }
        #expect(tms.export.hasPrefix("export UCUBE_TMS_URL=\(tms.url) UCUBE_TMS_CA="), "\(tms.export)")
        #expect(tms.export.hasSuffix(tms.ca), "\(tms.export)")

        let odd = "odd dir/it's"
        sandbox.environment["UCUBE_TMS_SIM_HOME"] = odd
        let script =
            #"eval "$("$0" simulate --tms 127.0.0.1:8443 --print-env)" && printf '%s\n' "$UCUBE_TMS_URL" "$UCUBE_TMS_CA""#
        let evaluated = try await blocking { [sandbox] in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", script, UCubeSandbox.binary.path]
            process.environment = sandbox.environment
            process.currentDirectoryURL = sandbox.directory
            let out = Pipe.cloexec()
            process.standardOutput = out
            try UCubeSandbox.start(process)
            let data = out.fileHandleForReading.readAllRetryingInterrupts()
            _ = process.waitForEnd()
            return String(decoding: data, as: UTF8.self)
        }
        let expectedCA = sandbox.directory.appendingPathComponent(odd).appendingPathComponent("tms-ca.pem").path
        #expect(evaluated == "https://127.0.0.1:8443\n\(expectedCA)\n", "\(evaluated)")
        let zero = try await sandbox.run(["simulate", "--tms", "127.0.0.1:0", "--print-env"])
        #expect(zero.status == 64, "port 0 is not known before the server runs")
    }

    /// `--tms-firmware-size` sets the SVPP image of the catalogue written on first use (a longer update for a test bed);
    /// a size out of 16…8192 KiB, or one next to --catalogue (an existing catalogue), is a usage error.
    @Test func theFirmwareSizeOfANewCatalogue() async throws {
        let sandbox = try UCubeSandbox()
        let tms = try await Self.startTMS(sandbox, extra: ["--tms-firmware-size", "600"])
        await Self.stop(tms.process)
        let catalogue = sandbox.directory.appendingPathComponent("tms-sim/catalogue")
        let image = try FileManager.default.contentsOfDirectory(atPath: catalogue.path).filter {
            $0.hasPrefix("svpp-") && $0.hasSuffix(".bin")
        }
        #expect(image.count == 1, "\(image)")
        let size = try #require(
            try FileManager.default.attributesOfItem(atPath: catalogue.appendingPathComponent(image[0]).path)[.size]
                as? Int)
        // The payload, and the image header before it (under 64 bytes).
        #expect(size >= 600 * 1024 && size < 600 * 1024 + 64, "\(size)")
        for bad in [
            ["--tms", "127.0.0.1:0", "--tms-firmware-size", "15"], ["--tms-firmware-size", "600"],
            ["--tms", "127.0.0.1:0", "--catalogue", catalogue.path, "--tms-firmware-size", "600"],
        ] {
            let result = try await sandbox.run(["simulate"] + bad)
            #expect(result.status == 64, "\(bad): \(result.stderr)")
            #expect(result.stderr.contains("--tms-firmware-size"), "\(bad): \(result.stderr)")
        }
    }

    static func events(_ stdout: String) -> [[String: Any]] {
        stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    @Test func localImageWithoutSignatureIsAUsageError() async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run("--device sim mdm-update --file /tmp/none.bin")
        #expect(run.status == 64)
        #expect(run.stderr.contains("--signature"))
        let missing = try await sandbox.run(
            "--device sim mdm-update --file /nonexistent.bin --signature /nonexistent.sig")
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("--file: cannot read /nonexistent.bin"), "\(missing.stderr)")
    }
}

extension UCubeSandbox {
    /// A signed SVPP firmware 6.0.2.0 of `payloadSize` seeded bytes in the sandbox: its image and signature paths.
    func signedSVPPImage(payloadSize: Int, version: [UInt8] = [6, 0, 2, 0]) throws -> (image: String, signature: String)
    {
        let name = "svpp-" + version.map(String.init).joined(separator: ".")
        let image = directory.appendingPathComponent("\(name).bin").path
        let signature = directory.appendingPathComponent("\(name).sig").path
        try SimulatedFirmware.writeImage(
            type: .svppFirmware, version: FirmwareVersion(version), payloadSize: payloadSize, imagePath: image,
            signaturePath: signature)
        return (image, signature)
    }

    /// The TMS faults a CI job must survive, chosen per request on `simulate --tms-fault`: each ends `mdm-update`
    /// with a typed error and its exit code (8: the TMS failed before any item; 9: an item not installed), and the
    /// terminal keeps its firmware; a single failed request is retried and the update completes. (`slow=`/`silent` outlast the
    /// client's 30 s read timeout; TMSClientTests cover them with a short timeout.)
    @Test(arguments: [
        ("config:503x3", Int32(8), "http 503"), ("config:malformed-json", 8, "not the expected json"),
        ("config:truncatedx3", 8, "https://127.0.0.1"), ("binary:500x3", 9, "http 500"),
        ("binary:truncatedx3", 9, "https://127.0.0.1"), ("binary:dropx3", 9, "https://127.0.0.1"),
        ("binary:corrupt", 9, "failed"), ("binary:bad-signature", 9, "failed"),
        // One failure is retried (3 attempts in all): the update completes.
        ("config:truncated", 0, "installed"), ("binary:drop", 0, "installed"),
    ])
    func tmsFaultsFromTheCommandLine(fault: String, exit: Int32, says: String) async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.05"
        let clean = try await TMSEndToEndTests.startTMS(sandbox)
        sandbox.environment["UCUBE_TMS_URL"] = clean.url
        sandbox.environment["UCUBE_TMS_CA"] = clean.ca
        let register = try await sandbox.run(["--device", "sim", "mdm-register"])
        #expect(register.status == 0, "\(register.stderr)")
        await TMSEndToEndTests.stop(clean.process)

        let faulty = try await TMSEndToEndTests.startTMS(sandbox, extra: ["--tms-fault", fault])
        defer { faulty.process.terminate() }
        sandbox.environment["UCUBE_TMS_URL"] = faulty.url
        let update = try await sandbox.run(["--device", "sim", "mdm-update", "--firmware-only"], timeout: .seconds(90))
        #expect(update.status == exit, "\(fault): \(update.stdout)\(update.stderr)")
        #expect(
            (update.stdout + update.stderr).lowercased().contains(says.lowercased()),
            "\(fault): \(update.stdout)\(update.stderr)")
        let info = try await sandbox.run("--device sim info")
        let firmware = exit == 0 ? "6.0.1.0" : "6.0.0.54"
        #expect(info.stdout.contains("firmware (SVPP): \(firmware)"), "\(fault): \(info.stdout)")
    }

    /// A TMS that never answers: `--tms-timeout 2` gives up after 3 attempts of 2 s (and 1 s + 2 s of backoff) with
    /// a typed timeout error, exit 8, the firmware unchanged.
    @Test func aSilentTMSIsGivenUpAfterTheTimeout() async throws {
        let sandbox = try UCubeSandbox()
        let clean = try await TMSEndToEndTests.startTMS(sandbox)
        sandbox.environment["UCUBE_TMS_URL"] = clean.url
        sandbox.environment["UCUBE_TMS_CA"] = clean.ca
        #expect(try await sandbox.run(["--device", "sim", "mdm-register"]).status == 0)
        await TMSEndToEndTests.stop(clean.process)

        let silent = try await TMSEndToEndTests.startTMS(sandbox, extra: ["--tms-fault", "config:silentx3"])
        defer { silent.process.terminate() }
        sandbox.environment["UCUBE_TMS_URL"] = silent.url
        let update = try await sandbox.run(
            ["--device", "sim", "--json", "mdm-update", "--tms-timeout", "2"], timeout: .seconds(40))
        #expect(update.status == 8, "\(update.stdout)\(update.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(update.stdout.utf8)) as? [String: Any]
        let error = object?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "tms-timeout", "\(update.stdout)")
        #expect(try await sandbox.run("--device sim info").stdout.contains("firmware (SVPP): 6.0.0.54"))
    }

    /// A TMS whose HTTPS certificate expired, or comes from a CA the client does not trust: the handshake is refused,
    /// `mdm-update` ends with a typed TLS error (exit 8), the firmware unchanged.
    @Test(arguments: ["expired", "foreign"])
    func aTMSCertificateThatCannotBeTrustedIsRefused(kind: String) async throws {
        let sandbox = try UCubeSandbox()
        let clean = try await TMSEndToEndTests.startTMS(sandbox)
        sandbox.environment["UCUBE_TMS_URL"] = clean.url
        sandbox.environment["UCUBE_TMS_CA"] = clean.ca
        #expect(try await sandbox.run(["--device", "sim", "mdm-register"]).status == 0)
        await TMSEndToEndTests.stop(clean.process)

        let bad = try await TMSEndToEndTests.startTMS(sandbox, extra: ["--tms-certificate", kind])
        defer { bad.process.terminate() }
        sandbox.environment["UCUBE_TMS_URL"] = bad.url
        let update = try await sandbox.run(["--device", "sim", "--json", "mdm-update"])
        #expect(update.status == 8, "\(kind): \(update.stdout)\(update.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(update.stdout.utf8)) as? [String: Any]
        let error = object?["error"] as? [String: Any]
        #expect((error?["code"] as? String)?.hasPrefix("tms-") == true, "\(kind): \(update.stdout)")
        let message = (error?["message"] as? String ?? "").lowercased()
        #expect(message.contains("certificate"), "\(kind): \(update.stdout)")
        #expect(try await sandbox.run("--device sim info").stdout.contains("firmware (SVPP): 6.0.0.54"))
    }
}
