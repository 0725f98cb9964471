import Foundation
import Testing

@testable import UCubeCLI

/// Issue 41, item 2: a log (stderr not a terminal) is never silent for more than 10 s while the work goes on, whether
/// it moves (a line each tenth, at most every 10 s between) or stalls (a slow block, the reboot, an upload: the
/// heartbeat's line). Driven by a clock the test controls: `now` advances in steps the test chooses, with a tick every
/// second as the heartbeat's task gives one.
struct ProgressLogTests {
    /// What a log would hold: each line with the time it was written.
    struct Log {
        var log = ProgressLog()
        var lines: [(at: Duration, text: String)] = []

        mutating func sample(
            _ label: String, sent: Int64, total: Int64, block: Int, of blocks: Int, item: Duration, at now: Duration
        ) {
            let text = ProgressFormat.line(
                label: label, sent: sent, total: total, count: .blocks(block, of: blocks), elapsed: item)
            if let line = log.sample(text, item: label, done: sent, total: total, now: now) {
                lines.append((now, line))
            }
        }

        mutating func status(_ text: String, at now: Duration) { lines.append((now, log.status(text, now: now))) }

        /// Ticks every second from `start` (excluded) to `end` (included), as the heartbeat does.
        mutating func ticks(from start: Duration, through end: Duration) {
            var now = start + .seconds(1)
            while now <= end {
                if let line = log.tick(now: now) { lines.append((now, line)) }
                now += .seconds(1)
            }
        }

        var longestGap: Duration {
            zip(lines, lines.dropFirst()).map { $1.at - $0.at }.max() ?? .zero
        }
    }

    /// An update as a slow link gives it: a download, 100 blocks at 2 s each, one block that takes 47 s, then a
    /// 95 s reboot, then a second item loaded fast. A tick every second throughout.
    @Test func anUpdateLogHasALineAtLeastEveryTenSeconds() {
        var log = Log()
        var now = Duration.zero
        log.status("downloading SVPP firmware 6.0.1.0 from the TMS…", at: now)
        log.ticks(from: now, through: now + .seconds(25))  // a slow download
        now += .seconds(25)
        let itemStart = now
        for block in 1...100 {
            let step: Duration = block == 60 ? .seconds(47) : .seconds(2)
            log.ticks(from: now, through: now + step - .seconds(1))
            now += step
            log.sample(
                "SVPP firmware 6.0.1.0", sent: Int64(block) * 1024, total: 102_400, block: block, of: 100,
                item: now - itemStart, at: now)
        }
        log.status("waiting for the terminal to reboot…", at: now)
        log.ticks(from: now, through: now + .seconds(95))
        now += .seconds(95)
        for block in 1...10 {
            now += .milliseconds(50)
            log.sample(
                "ICC EMV config", sent: Int64(block) * 100, total: 1000, block: block, of: 10,
                item: .milliseconds(50 * block), at: now)
        }
        print("ProgressLogTests: \(log.lines.count) lines over \(now), the longest gap \(log.longestGap)")
        #expect(log.longestGap <= ProgressPace.interval, "\(log.lines.map { "\($0.at): \($0.text)" })")
        let texts = log.lines.map(\.text)
        // Each tenth of the slow item has its line, with blocks, bytes, rate and ETA.
        for percent in stride(from: 10, through: 90, by: 10) {
            #expect(texts.contains { $0.hasPrefix("SVPP firmware 6.0.1.0: \(percent)%, block \(percent) of 100, ") })
        }
        #expect(texts.contains("SVPP firmware 6.0.1.0: 50%, block 50 of 100, 51.2 kB of 102.4 kB, 512 B/s, ETA 1:40"))
        // The stalled block and the reboot are not silence: the heartbeat says how long they have stood.
        #expect(
            texts.contains {
                $0.hasPrefix("SVPP firmware 6.0.1.0: 59%, block 59 of 100") && $0.hasSuffix("(no progress for 0:42)")
            }, "\(texts)")
        #expect(texts.contains("waiting for the terminal to reboot… (1:30)"), "\(texts)")
        #expect(texts.contains("downloading SVPP firmware 6.0.1.0 from the TMS… (0:20)"), "\(texts)")
        // A fast item: a line a tenth at most, and no heartbeat lines in between.
        let fast = texts.filter { $0.hasPrefix("ICC EMV config") }
        #expect(fast.count <= 11 && fast.last?.hasPrefix("ICC EMV config: 100%, block 10 of 10") == true, "\(fast)")
    }

    /// Work without bytes (a fleet run's terminals): the count gives the share and the ETA.
    @Test func aFleetLineCountsTerminals() {
        #expect(
            ProgressFormat.line(
                label: "fleet test", sent: 0, total: 0, count: .terminals(3, of: 10), elapsed: .seconds(60))
                == "fleet test: 30%, 3 of 10 terminals, ETA 2:20")
        #expect(
            ProgressFormat.line(label: "fleet info", sent: 0, total: 0, count: .terminals(0, of: 1), elapsed: .zero)
                == "fleet info: 0%, 0 of 1 terminal")
    }
}
