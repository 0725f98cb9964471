import Foundation
import Logging
import UCubeLink
import UCubeProtocol
import UCubeSupport

/// The link an update runs over. A firmware reboot drops it, and `reopen` dials the terminal again; the caller
/// (the CLI's `Connection`) knows how.
package protocol UpdateLink: Sendable {
    /// The client of the link as it is now.
    var client: RPCClient { get async }
    /// Closes the link and opens it again, after a reboot (`RebootWait` calls it until the terminal answers).
    func reopen() async throws -> RPCClient
    /// The versions the terminal reports (GetInfo), to check a load by. A failure stops the run, as a lost link does.
    func versions(_ client: RPCClient) async throws(UpdateError) -> DeviceVersions
}

/// One item of an update: what to load, and how to check it.
package struct UpdateItem: Sendable {
    /// Where the item's binaries come from.
    package enum Source: Sendable {
        /// Binaries at hand (a local image and its signature).
        case binaries([any LoadableBinary])
        /// Downloaded from the TMS to `path` first (spec §10.5): a zip answer listing several binaries gives them all,
        /// in manifest order.
        case download(TMSClient, TMSConfigItem, terminal: TerminalIdentity, certificate: [UInt8], path: String)
    }

    /// The item's one name, in its progress events and its verdict.
    package let label: String
    package let type: Int?
    package let from: FirmwareVersion?
    package let to: String?
    /// The version the terminal must report after the load; nil when it reports none for this type.
    package let target: FirmwareVersion?
    package let source: Source

    package init(
        label: String, type: Int?, from: FirmwareVersion?, to: String?, target: FirmwareVersion?, source: Source
    ) {
        self.label = label
        self.type = type
        self.from = from
        self.to = to
        self.target = target
        self.source = source
    }

    /// A planned TMS item (spec §10.4), downloaded to `path` when its turn comes.
    package init(
        _ update: PlannedUpdate, client: TMSClient, terminal: TerminalIdentity, certificate: [UInt8], path: String
    ) {
        let config = update.item
        self.init(
            label: Self.label(config), type: config.type, from: update.deviceVersion,
            to: config.currentVersion.description,
            target: DeviceVersions.reportsVersion(forType: config.type) ? config.currentVersion : nil,
            source: .download(client, config, terminal: terminal, certificate: certificate, path: path))
    }

    /// A local image: named and checked by its project image header (spec PROJECT CHOICE "UCFW") when it has one,
    /// by its file name otherwise.
    package init(local image: LocalImage, versions: DeviceVersions) {
        let header = Self.header(of: image.imagePath)
        self.init(
            label: header.map { $0.type.description } ?? image.name,
            type: header.map { Int($0.type.rawValue) },
            from: header.flatMap { versions.version(forType: Int($0.type.rawValue)) },
            to: header.map { $0.version.description }, target: header?.version, source: .binaries([image]))
    }

    /// Whether loading the item reboots the terminal (an SVPP firmware, spec §10.6).
    package var reboots: Bool {
        type.flatMap { UInt8(exactly: $0) }.flatMap(FirmwareItemType.init(rawValue:))?.rebootsTerminal ?? false
    }

    /// The label and the version, for the progress bar and the log.
    package var title: String { to.map { "\(label) \($0)" } ?? label }

    /// The server's label for an item, else its type's name.
    package static func label(_ item: TMSConfigItem) -> String {
        item.label.flatMap { $0.isEmpty ? nil : $0 } ?? item.typeName
    }

    /// The project image header of a local file, when it has one.
    private static func header(of path: String) -> FirmwareImageHeader? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: FirmwareImageChoices.headerSize) else { return nil }
        return try? FirmwareImageHeader(parsing: Array(data))
    }
}

/// One item's outcome: the `item` event of `mdm-update --json`, whose `item` is the name its `progress` events carry.
package struct UpdateVerdict: Encodable, Sendable, Equatable {
    package enum Result: String, Encodable, Sendable {
        /// The terminal now reports the target version.
        case installed
        /// The terminal accepted the last block; it reports no version for this type to check.
        case loaded
        /// The terminal already reports the image's version: nothing was loaded (it refuses a same-version image,
        /// spec §10.4), so a re-run of an update that finished, but whose verdict was lost, succeeds.
        case current
        case failed
        /// Not attempted: the run stopped at an earlier item (link lost, Ctrl-C).
        case skipped
    }

    package let item: String
    /// The item type (spec §10.3); `nil` for a local file without a project image header.
    package let type: Int?
    package let from: String?
    /// The version being installed; `nil` when a local file does not say.
    package let to: String?
    package var result: Result
    package var now: String? = nil
    package var bytes: Int? = nil
    package var seconds: Double? = nil
    package var error: String? = nil

    package init(item: String, type: Int?, from: String?, to: String?, result: Result) {
        self.item = item
        self.type = type
        self.from = from
        self.to = to
        self.result = result
    }

    private enum Key: String, CodingKey {
        case item, type, from, to, result, now, bytes, seconds, error
    }

    /// `type`, `from` and `to` are always present, `null` when unknown; the others only when they apply.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(item, forKey: .item)
        try c.encode(type, forKey: .type)
        try c.encode(from, forKey: .from)
        try c.encode(to, forKey: .to)
        try c.encode(result, forKey: .result)
        try c.encodeIfPresent(now, forKey: .now)
        try c.encodeIfPresent(bytes, forKey: .bytes)
        try c.encodeIfPresent(seconds, forKey: .seconds)
        try c.encodeIfPresent(error, forKey: .error)
    }
}

/// What an update session reports as it goes, in order; the CLI renders each as text or JSON.
package enum UpdateEvent: Sendable {
    /// The item's binary is being fetched from the TMS.
    case downloading(UpdateItem)
    /// A block of the item was accepted: `elapsed` since the item started.
    case progress(UpdateItem, LoadProgress, elapsed: Duration)
    /// The item's load reboots the terminal: waiting for it to come back.
    case rebooting(UpdateItem)
    /// The item's outcome.
    case verdict(UpdateVerdict)
}

/// How an update session ended.
package struct UpdateOutcome: Sendable {
    package var verdicts: [UpdateVerdict] = []
    /// Why the run stopped before its last item (the link was lost, the task was cancelled); nil when it went on.
    package var stopped: UpdateError? = nil

    package init() {}

    /// Items not installed: failed, or skipped after the run stopped.
    package var failed: Int { verdicts.filter { $0.result == .failed || $0.result == .skipped }.count }
    package var installed: Int { verdicts.count - failed }
}

/// An update of one terminal (spec §10.5, §10.6): each item in turn is downloaded, loaded (InstallForLoad, then Load
/// blocks), waited for if it reboots the terminal, and checked against the versions the terminal then reports. An
/// item that fails for itself (a refused signature, a TMS error) fails alone; one that loses the link, times out in
/// the reboot or is cancelled stops the run, and the items after it are skipped. Cancelling the task stops the load
/// after the current block (`BinaryLoader`): the terminal installs nothing it did not receive whole.
package struct UpdateSession: Sendable {
    package let items: [UpdateItem]
    package var rebootWait: RebootWait
    package var logger: Logger

    package init(items: [UpdateItem], rebootWait: RebootWait = RebootWait(), logger: Logger) {
        self.items = items
        self.rebootWait = rebootWait
        self.logger = logger
    }

    package func run(on link: some UpdateLink, events: @Sendable (UpdateEvent) -> Void) async -> UpdateOutcome {
        var outcome = UpdateOutcome()
        for item in items {
            let verdict = await install(item, link: link, stopped: &outcome.stopped, events: events)
            outcome.verdicts.append(verdict)
            events(.verdict(verdict))
        }
        return outcome
    }

    private func install(
        _ item: UpdateItem, link: some UpdateLink, stopped: inout UpdateError?, events: @Sendable (UpdateEvent) -> Void
    ) async -> UpdateVerdict {
        var verdict = UpdateVerdict(
            item: item.label, type: item.type, from: item.from?.description, to: item.to, result: .failed)
        if stopped != nil {
            verdict.result = .skipped
            return verdict
        }
        if let target = item.target, item.from == target {
            verdict.result = .current
            verdict.now = target.description
            logger.info("\(item.title): the terminal already runs it; nothing to load")
            return verdict
        }
        let started = ContinuousClock.now
        do {
            var bytes = 0
            for binary in try await binaries(item, events: events) {
                let result = try await BinaryLoader(client: await link.client).load(binary) { progress in
                    events(.progress(item, progress, elapsed: ContinuousClock.now - started))
                }
                bytes += result.totalBytes
                logger.info(
                    "loaded \(item.title) (\(binary.name)): \(result.totalBytes) bytes in \(result.blockCount) blocks")
            }
            verdict.bytes = bytes
            var client = await link.client
            if item.reboots {
                events(.rebooting(item))
                client = try await rebootWait.wait(after: client, reconnect: { try await link.reopen() }).client
            }
            let versions = try await link.versions(client)
            let now = item.type.flatMap { versions.version(forType: $0) }
            verdict.now = now?.description
            if let target = item.target {
                if now == target {
                    verdict.result = .installed
                } else {
                    verdict.error =
                        "the terminal reports \(now?.description ?? "no version") after the load, not \(target)"
                }
            } else {
                verdict.result = .loaded
            }
        } catch let error as UpdateError {
            verdict.error = error.reason
            switch error.code {
            case .link, .cancelled, .rebootTimeout: stopped = error
            default: break
            }
        } catch let error as TMSError {
            verdict.error = error.reason
            if error.code == .cancelled { stopped = UpdateError(.cancelled, error.reason) }
        } catch {
            // Nothing else is thrown above (the link's own errors arrive as `UpdateError`); should a new one appear,
            // the run stops as for a lost link rather than carry on blind.
            verdict.error = "\(error)"
            stopped = UpdateError(.link, "\(error)")
        }
        verdict.seconds = (ContinuousClock.now - started).seconds
        if verdict.result == .failed { logger.error("\(item.title) not installed: \(verdict.error ?? "")") }
        return verdict
    }

    /// The item's binaries, downloading them first when they come from the TMS.
    private func binaries(_ item: UpdateItem, events: @Sendable (UpdateEvent) -> Void) async throws
        -> [any LoadableBinary]
    {
        switch item.source {
        case .binaries(let binaries):
            return binaries
        case .download(let client, let config, let terminal, let certificate, let path):
            events(.downloading(item))
            let download = try await client.downloadBinary(
                type: config.type, terminal: terminal, certificate: certificate, ciphered: config.ciphered, to: path)
            // A zip answer may hold several binaries: they replace the item, in manifest order (§10.5).
            return download.packages.map { TMSBinaryPackage(path: $0.path, ciphered: config.ciphered) }
        }
    }
}
