import ArgumentParser
import Foundation
import Logging
import UCubeLink
import UCubeLog
import UCubeProtocol
import UCubeRuntime
import UCubeSupport
import UCubeTMS

extension UCube {
    /// `ucube mdm-update`: plan per spec §10.4 and install the TMS's binaries (§10.5, §10.6), or a local image.
    struct MDMUpdate: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "mdm-update",
            abstract: "Update the terminal's firmware and EMV configuration from the TMS (or from a local image).",
            discussion: """
                Reads the terminal's versions (GetInfo), fetches its config from the TMS and plans per spec §10.4: an \
                item is proposed when the server's version is newer (or equal, with --force) and is mandatory when \
                the terminal is below its min_version; an NFC configuration follows an NFC firmware. --plan prints \
                the plan and changes nothing. Otherwise each chosen item is downloaded to \
                $XDG_STATE_HOME/ucube/downloads, loaded (InstallForLoad, then Load blocks) with a progress bar on a \
                terminal, JSON lines with --json, or else (a CI log, a pipe) a plain line at each tenth and at least \
                every 10 s (blocks, bytes, rate, ETA; a stalled block or the reboot is said again while it lasts), the terminal is waited for after a firmware reboot, and the \
                versions are read again: each item gets a verdict. An item cut short (link drop, Ctrl-C, kill) is \
                never installed (the terminal verifies the signature after the last block), so a re-run completes \
                the update. Exit 0 when every chosen item is installed, 9 when one is not, 11 after Ctrl-C, 8 when \
                the TMS fails before any item. Needs `ucube mdm-register` first (client certificate).

                Fleet runs (info, diagnose, mdm-register, mdm-update, send-logs, test, shell --script): with --device given more than once, or \
                --devices FILE (one device name or URL a line), the command runs for every terminal in one process, \
                up to --parallel at a time (default: all; Bluetooth terminals connect one at a time). --json prints \
                each event as a JSON line with its "device", each terminal's "end" event (result ok, failed or \
                not-started, exit code, message, items) and a last "summary"; otherwise a line per terminal as it \
                ends and a summary table. --junit FILE writes a JUnit report (a test case per terminal, per item for \
                mdm-update). --max-failures N starts no more terminals once N have failed. Each verdict is appended \
                to a run file as it comes: the same command run again retries only the terminals not yet done \
                (--restart runs them all); the file is deleted once every terminal is done. Exit 0 only when every \
                terminal succeeded, 18 otherwise, 11 after Ctrl-C. See docs/fleet.md.
                """ + HelpExamples.section("mdm-update"))

        @OptionGroup var globals: GlobalOptions
        @OptionGroup var tms: TMSOptions
        @OptionGroup var fleet: FleetOptions

        @Flag(help: "Print the plan (item, type, device version → server version, mandatory) and change nothing.")
        var plan = false

        @Flag(help: "Install the optional items too (default: the mandatory ones only).")
        var all = false

        @Flag(help: "Propose items whose version equals the terminal's (reinstall).")
        var force = false

        @Flag(help: "Consider the SVPP and NFC firmware only (types 0 and 3).")
        var firmwareOnly = false

        @Option(
            help: ArgumentHelp(
                "Install a local image instead of asking the TMS (with --signature).", valueName: "image"),
            completion: .file())
        var file: String?

        @Option(help: ArgumentHelp("The local image's detached signature file.", valueName: "sig"), completion: .file())
        var signature: String?

        func validate() throws {
            if (file == nil) != (signature == nil) {
                throw ValidationError(
                    "--file and --signature go together: the terminal checks the image against its signature")
            }
            if file != nil && (plan || all || force || firmwareOnly) {
                throw ValidationError(
                    "--file installs one local image; --plan, --all, --force and --firmware-only are for TMS updates")
            }
            for (option, path) in [("--file", file), ("--signature", signature)] {
                if let path, !FileManager.default.isReadableFile(atPath: expand(path)) {
                    throw ValidationError("\(option): cannot read \(expand(path))")
                }
            }
        }

        func run(in context: CommandContext) async throws {
            if context.shell != nil {
                throw CLIFailure(
                    ExitCodes.usage,
                    "mdm-update reconnects after a firmware reboot; run it from the command line, not inside `ucube shell`"
                )
            }
            if let run = try FleetRun(
                command: "mdm-update", context: context, options: fleet.values,
                inputs: [file, signature].compactMap { $0 })
            {
                try await run.run { device in try await job(context.single(device, json: true)).run() }
                return
            }
            let update = job(context)
            try await Interrupts.cancelling(
                { try await update.run() },
                first: {
                    StandardError.write(
                        "ucube: interrupted: stopping after the current block (the terminal keeps its installed version)"
                    )
                })
        }

        private func job(_ context: CommandContext) -> UpdateJob {
            UpdateJob(
                context: context, tmsOptions: tms, planOnly: plan, all: all, force: force, firmwareOnly: firmwareOnly,
                localImage: file.map { LocalImage(imagePath: expand($0), signaturePath: expand(signature!)) })
        }

        private func expand(_ path: String) -> String { (path as NSString).expandingTildeInPath }
    }
}

/// The terminal's link across a firmware reboot: the reboot drops it and `reopen` dials again.
private actor LinkSlot: UpdateLink {
    private var connection: Connection
    private let context: CommandContext

    init(_ connection: Connection, context: CommandContext) {
        self.connection = connection
        self.context = context
    }

    var client: RPCClient { connection.client }

    func reopen() async throws -> RPCClient {
        await connection.close()
        connection = try await Connection.open(context)
        return connection.client
    }

    /// The versions as `TerminalFacts` reads them; whatever stops that read stops the run, in its words.
    nonisolated func versions(_ client: RPCClient) async throws(UpdateError) -> DeviceVersions {
        do {
            return try await TerminalFacts.read(client).versions
        } catch let failure as CLIFailure {
            throw UpdateError(.link, failure.message)
        } catch let error as LinkError {
            throw UpdateError(.link, error.reason)
        } catch {
            throw UpdateError(.link, "\(error)")
        }
    }

    func close() async { await connection.close() }
}

/// `mdm-update`'s work, run in a task Ctrl-C can cancel.
private struct UpdateJob: Sendable {
    let context: CommandContext
    let tmsOptions: TMSOptions
    let planOnly: Bool
    let all: Bool
    let force: Bool
    let firmwareOnly: Bool
    let localImage: LocalImage?

    func run() async throws {
        let link = LinkSlot(try await Connection.open(context), context: context)
        do {
            try await update(link)
            await link.close()
        } catch {
            await link.close()
            throw error
        }
    }

    private func update(_ link: LinkSlot) async throws {
        let facts = try await TerminalFacts.read(await link.client)
        if let localImage {
            try await install([UpdateItem(local: localImage, versions: facts.versions)], link: link)
            return
        }
        let settings = try tmsOptions.settings()
        let identity: TMSIdentity = try tmsChecked { () throws(TMSError) in
            try TMSContext.identities.identity(serial: facts.identity.serial)
        }
        try await TMSContext.with(settings, identity: identity) { client in
            let items = try await client.config(terminal: facts.identity)
            let planned = UpdatePlanner.plan(
                items: items, device: facts.versions, force: force, firmwareOnly: firmwareOnly)
            let chosen = planned.filter { all || $0.mandatory }
            if planOnly {
                try printPlan(planned, chosen: chosen, terminal: facts.identity, server: settings.baseURL)
                return
            }
            if chosen.isEmpty {
                UpdateOutput(json: context.json).nothingToDo(terminal: facts.identity.serial, optional: planned.count)
                return
            }
            let certificate = try await TerminalFacts.certificate(await link.client)
            let downloads = TMSContext.downloads
            try Environment.requireStateDirectory()
            try Environment.ensureDirectory(downloads)
            let plannedItems = chosen.map { update in
                UpdateItem(
                    update, client: client, terminal: facts.identity, certificate: certificate,
                    path: Self.downloadPath(update.item, terminal: facts.identity))
            }
            defer {
                for update in chosen {
                    for file in TMSDownload.files(at: Self.downloadPath(update.item, terminal: facts.identity)) {
                        try? FileManager.default.removeItem(atPath: file)
                    }
                }
            }
            try await install(plannedItems, link: link)
        }
    }

    /// Where an item's binary is downloaded (deleted after the run, loaded or not).
    private static func downloadPath(_ item: TMSConfigItem, terminal: TerminalIdentity) -> String {
        "\(TMSContext.downloads)/\(terminal.serial)-type\(item.type)-\(item.currentVersion).bin"
    }

    // MARK: Installing

    private func install(_ items: [UpdateItem], link: LinkSlot) async throws {
        let json = context.json
        let output = UpdateOutput(json: json)
        // One display an item: a bar starts afresh, its rate and ETA from the item's own start.
        let display = ProgressSink(json: json)
        let outcome = await UpdateSession(items: items, logger: Logger(layer: .mdm)).run(on: link) { event in
            switch event {
            case .downloading(let item):
                if !json { display.status("downloading \(item.label) \(item.to ?? "") from the TMS…") }
            case .progress(let item, let progress, let elapsed):
                // JSON progress names the item as its verdict does; the bar adds the version.
                display.update(label: json ? item.label : item.title, progress: progress, elapsed: elapsed)
            case .rebooting:
                if !json { display.status("waiting for the terminal to reboot…") }
            case .verdict(let verdict):
                display.reset()
                output.verdict(verdict)
            }
        }
        display.stop()
        let verdicts = outcome.verdicts
        let stopped = outcome.stopped
        let failed = outcome.failed
        output.done(installed: outcome.installed, failed: failed)
        if stopped?.code == .cancelled {
            throw CLIFailure(
                ExitCodes.cancelled,
                "update interrupted: the terminal keeps its installed version; run mdm-update again to finish")
        }
        if failed > 0 {
            throw CLIFailure(
                ExitCodes.updateFailed,
                "\(failed) of \(verdicts.count) item\(verdicts.count == 1 ? "" : "s") not installed; run mdm-update again to retry"
            )
        }
    }

    // MARK: The plan

    private func printPlan(
        _ planned: [PlannedUpdate], chosen: [PlannedUpdate], terminal: TerminalIdentity, server: String
    ) throws {
        let rows = planned.map { update in
            UpdatePlanReport.Row(
                item: UpdateItem.label(update.item), type: update.item.type,
                device: update.deviceVersion?.description, server: update.item.currentVersion.description,
                minVersion: update.item.minVersion.description, mandatory: update.mandatory,
                install: chosen.contains(update))
        }
        try UpdatePlanReport(rows: rows, terminal: terminal.serial, server: server).print(json: context.json)
    }
}
