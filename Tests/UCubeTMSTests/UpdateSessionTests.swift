import Foundation
import Logging
import Testing
import UCubeLink
import UCubeProtocol
import UCubeSimulator

@testable import UCubeTMS

/// The update session over the in-process simulator: what it loads, checks and reports, in order, and the stop rule
/// (a lost link stops the run and skips the items after it).
@Suite struct UpdateSessionTests {
    /// A link to the rig; `reopen` dials a fresh one, as the CLI's `Connection` does after a reboot.
    actor RigLink: UpdateLink {
        let rig: Rig
        private var current: RPCClient

        init(_ rig: Rig) {
            self.rig = rig
            current = rig.connect()
        }

        var client: RPCClient { current }

        func reopen() async throws -> RPCClient {
            await current.close()
            current = rig.connect()
            return current
        }

        nonisolated func versions(_ client: RPCClient) async throws(UpdateError) -> DeviceVersions {
            let info: DeviceInfo?
            do {
                info = try await client.send(GetInfo()).response
            } catch {
                throw UpdateError(.link, error.reason)
            }
            guard let info else { throw UpdateError(.link, "GetInfo answered no data") }
            return DeviceVersions(info)
        }
    }

    /// The events as the session reported them.
    final class EventLog: @unchecked Sendable {
        private let lock = NSLock()
        private var storage: [UpdateEvent] = []
        func record(_ event: UpdateEvent) { lock.withLock { storage.append(event) } }
        var events: [UpdateEvent] { lock.withLock { storage } }
    }

    static func logger() -> Logger { Logger(label: "test.update") }

    @Test func aLocalImageIsLoadedCheckedAndReportedInOrder() async throws {
        let rig = try Rig()
        let before = DeviceVersions(try await rig.versions())
        let files = try writeLocalImage(.iccConfig, "1.0.0.6", payloadSize: 5_000, in: try temporaryDirectory())
        let item = UpdateItem(
            local: LocalImage(imagePath: files.image, signaturePath: files.signature), versions: before)
        #expect(item.label == FirmwareItemType.iccConfig.description)
        #expect(item.to == "1.0.0.6")
        #expect(!item.reboots)
        let link = RigLink(rig)
        let log = EventLog()
        let outcome = await UpdateSession(items: [item], logger: Self.logger()).run(on: link) { log.record($0) }
        await link.client.close()

        #expect(outcome.stopped == nil)
        #expect(outcome.installed == 1 && outcome.failed == 0)
        let verdict = try #require(outcome.verdicts.first)
        #expect(verdict.result == .installed, "\(verdict.error ?? "")")
        #expect(verdict.now == "1.0.0.6")
        #expect(verdict.bytes == 5_000 + FirmwareImageChoices.headerSize)
        // Progress for every block, growing to the whole image, then the verdict last; nothing downloaded or rebooted.
        let events = log.events
        let sent: [Int] = events.compactMap { if case .progress(_, let p, _) = $0 { p.bytesSent } else { nil } }
        #expect(sent.count >= 3)
        #expect(sent == sent.sorted() && sent.last == verdict.bytes)
        guard case .verdict(let last) = events.last else {
            Issue.record("the last event is not the verdict: \(events)")
            return
        }
        #expect(last == verdict)
        #expect(events.filter { if case .verdict = $0 { true } else { false } }.count == 1)
        #expect(
            events.allSatisfy { if case .progress = $0 { true } else if case .verdict = $0 { true } else { false } })
    }

    @Test func anItemTheTerminalAlreadyRunsIsNotLoaded() async throws {
        let version = try #require(FirmwareVersion("1.0.0.6"))
        let item = UpdateItem(
            label: "ICC", type: Int(FirmwareItemType.iccConfig.rawValue), from: version, to: "1.0.0.6", target: version,
            source: .binaries([]))
        let link = RigLink(try Rig())
        let log = EventLog()
        let outcome = await UpdateSession(items: [item], logger: Self.logger()).run(on: link) { log.record($0) }
        await link.client.close()
        #expect(outcome.verdicts.map(\.result) == [.current])
        #expect(outcome.verdicts.first?.now == "1.0.0.6")
        #expect(outcome.failed == 0)
        #expect(log.events.count == 1)
    }

    /// The link is gone before the first block: the first item fails on the link, the run stops, and the second is
    /// skipped, not attempted; both count as not installed.
    @Test func aLostLinkStopsTheRunAndSkipsTheRest() async throws {
        let directory = try temporaryDirectory()
        let first = try writeLocalImage(.iccConfig, "1.0.0.6", payloadSize: 3_000, in: directory)
        let second = try writeLocalImage(.nfcConfig, "2.0.0.1", payloadSize: 3_000, in: directory)
        let versions = DeviceVersions(try await Rig().versions())
        let items = [first, second].map {
            UpdateItem(local: LocalImage(imagePath: $0.image, signaturePath: $0.signature), versions: versions)
        }
        let link = RigLink(try Rig())
        await link.client.close()
        let log = EventLog()
        let outcome = await UpdateSession(items: items, logger: Self.logger()).run(on: link) { log.record($0) }
        #expect(outcome.verdicts.map(\.result) == [.failed, .skipped])
        #expect(outcome.stopped?.code == .link)
        #expect(outcome.verdicts.first?.error == outcome.stopped?.reason)
        #expect(outcome.verdicts.last?.error == nil)
        #expect(outcome.failed == 2 && outcome.installed == 0)
        #expect(log.events.count == 2)
    }
}
