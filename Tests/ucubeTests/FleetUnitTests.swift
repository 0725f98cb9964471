import Foundation
import Testing
import UCubeLink
import UCubeRuntime
import UCubeSupport

@testable import UCubeCLI

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The pure parts of a fleet run: the run file's key and lines, and the JUnit report's cases and escaping.
struct FleetUnitTests {
    @Test func theRunFileKeyIgnoresTheOptionsThatOnlyChangeHowTheRunGoes() {
        let base = ["mdm-update", "--devices", "fleet.txt", "--all"]
        let key = FleetRunFile.key(base)
        #expect(key.count == 16)
        #expect(FleetRunFile.key(base + ["--parallel", "4", "--json", "--restart"]) == key)
        #expect(FleetRunFile.key(["--max-failures=3"] + base + ["--junit", "out.xml", "--run-file", "r"]) == key)
        #expect(FleetRunFile.key(["mdm-update", "--devices", "other.txt", "--all"]) != key)
        #expect(FleetRunFile.key(["mdm-update", "--devices", "fleet.txt"]) != key, "--all changes what is done")
    }

    @Test func theRunFileKeepsEachDevicesLastReadableVerdict() throws {
        var first = FleetVerdict.failed("tcp://a:1", CLIFailure(ExitCodes.timeout, "no answer"), seconds: 2)
        first.at = "2026-11-24T10:00:00Z"
        let second = FleetVerdict.ok("tcp://a:1", seconds: 1)
        let other = FleetVerdict.ok("tcp://b:2", seconds: 1)
        let encoder = JSONEncoder()
        var bytes: [UInt8] = []
        for verdict in [first, other, second] {
            bytes += Array(try encoder.encode(verdict)) + [0x0A]
        }
        bytes += Array(#"{"device":"tcp://c:3","result":"ok""#.utf8) + [0x0A]  // cut short by a kill: ignored
        bytes += Array("not json\n".utf8)
        let verdicts = FleetRunFile.parse(bytes)
        #expect(verdicts.keys.sorted() == ["tcp://a:1", "tcp://b:2"])
        #expect(verdicts["tcp://a:1"]?.result == .ok)
        #expect(verdicts.values.allSatisfy { $0.earlier })
    }

    @Test func junitCasesArePerItemForUpdatesAndPerDeviceOtherwise() {
        var update = FleetVerdict.failed(
            "tcp://a:1", CLIFailure(ExitCodes.updateFailed, "1 of 2 items not installed"), seconds: 3)
        update.items = [
            FleetVerdict.Item(item: "SVPP firmware", result: "installed", seconds: 2),
            FleetVerdict.Item(item: "ICC EMV configuration", result: "failed", error: "refused (-910)"),
        ]
        let link = FleetVerdict.failed("tcp://b:2", CLIFailure(ExitCodes.link, "connection refused"), seconds: 0.1)
        var earlier = FleetVerdict.ok("tcp://c:3", seconds: 1)
        earlier.earlier = true
        let skipped = FleetVerdict.notStarted("tcp://d:4", because: "2 terminals failed (--max-failures 2)")
        let cases = JUnitReport.cases(command: "mdm-update", verdicts: [update, link, earlier, skipped])
        #expect(
            cases.map(\.name) == ["SVPP firmware", "ICC EMV configuration", "mdm-update", "mdm-update", "mdm-update"])
        #expect(cases[0].outcome == .passed(note: nil))
        #expect(cases[1].outcome == .failed(type: "failed", message: "refused (-910)"))
        #expect(cases[2].outcome == .failed(type: "link", message: "connection refused"))
        #expect(cases[3].outcome == .passed(note: "done in an earlier run of this command (run file)"))
        #expect(cases[4].outcome == .skipped(message: "not started: 2 terminals failed (--max-failures 2)"))
    }

    @Test func junitIsWellFormedWhateverTheMessagesHold() throws {
        let nasty = FleetVerdict.failed(
            "tcp://<a>&\"b\":1", CLIFailure(ExitCodes.protocolError, "bad bytes \u{01}\u{1B}[31m <x/> & 'q'"),
            seconds: 0.5)
        let xml = JUnitReport.xml(
            command: "info", verdicts: [nasty, .ok("sim", seconds: 0.2)], timestamp: Date(timeIntervalSince1970: 0),
            seconds: 1)
        let document = try XMLDocument(xmlString: xml)
        let failure = try #require(try document.nodes(forXPath: "//failure").first as? XMLElement)
        #expect(failure.attribute(forName: "message")?.stringValue == "bad bytes \u{FFFD}\u{FFFD}[31m <x/> & 'q'")
        let suite = try #require(try document.nodes(forXPath: "//testsuite").first as? XMLElement)
        #expect(suite.attribute(forName: "tests")?.stringValue == "2")
        #expect(suite.attribute(forName: "failures")?.stringValue == "1")
        #expect(
            try document.nodes(forXPath: "//testcase/@classname").map(\.stringValue) == ["tcp://<a>&\"b\":1", "sim"])
    }

    /// Bluetooth connects take turns, first come first served, and a failed one passes the turn on.
    @Test func bluetoothConnectsTakeTurns() async throws {
        final class Overlap: @unchecked Sendable {
            private let lock = NSLock()
            private var inside = 0
            private(set) var most = 0
            private(set) var order: [Int] = []
            func enter(_ i: Int) {
                lock.withLock {
                    inside += 1; most = max(most, inside); order.append(i)
                }
            }
            func leave() { lock.withLock { inside -= 1 } }
        }
        let gate = BluetoothConnectGate()
        let overlap = Overlap()
        let results = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<8 {
                group.addTask {
                    do {
                        return try await gate.serialized { () async throws(LinkError) -> Bool in
                            overlap.enter(i)
                            try? await Task.sleep(for: .milliseconds(5))
                            overlap.leave()
                            if i % 3 == 0 { throw LinkError(.connectFailed, "no terminal") }
                            return true
                        }
                    } catch {
                        return false
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(overlap.most == 1)
        #expect(overlap.order.count == 8)
        #expect(results.filter { $0 }.count == 5)
    }

    @Test func jsonTextParsesIntoValuesThatWriteBackTheSame() throws {
        #expect(JSONOutput.Value.parse("serial number: 1") == nil)
        #expect(JSONOutput.Value.parse(#"{"a":[1,2.5,true,null,"x"]}"#)?.line == #"{"a":[1,2.5,true,null,"x"]}"#)
    }
}

/// A devices file or a shell script saved with CRLF line ends is read line by line (issue 25: "read as one line"):
/// in Swift "\r\n" is a single Character, which splitting on "\n" never finds.
struct CRLFTests {
    @Test func aCRLFDevicesFileListsEachTerminal() throws {
        let devices = try FleetDevices.list(
            given: [], file: "devices.txt", text: "tcp://127.0.0.1:7000\r\n# comment\r\ntcp://127.0.0.1:7001\r\n")
        #expect(devices.map(\.name) == ["tcp://127.0.0.1:7000", "tcp://127.0.0.1:7001"])
    }

    @Test func aCRLFShellScriptRunsLineByLine() async throws {
        let sandbox = try UCubeSandbox()
        let script = sandbox.directory.appendingPathComponent("crlf.ucube")
        try "set json on\r\ninfo\r\n".write(to: script, atomically: true, encoding: .utf8)
        let run = try await sandbox.run(["shell", "--script", script.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("\"state\""), "\(run.stdout)")
    }
}

/// Who holds a terminal's lock, read from the kernel's table (/proc/locks) without taking a lock (a `history` beside a
/// starting `pay` must never make it find its terminal busy). Lines as Linux prints them (fs/locks.c,
/// lock_get_status): "N: FLOCK  ADVISORY  WRITE PID MAJ:MIN:INODE START END", a waiter's with "->".
struct LockTableTests {
    @Test func theHolderOfTheFilesFlockIsFound() {
        let table = """
            1: POSIX  ADVISORY  WRITE 100 00:2a:77 0 EOF
            2: FLOCK  ADVISORY  WRITE 4242 00:2a:1234 0 EOF
            2: -> FLOCK  ADVISORY  WRITE 999 00:2a:1234 0 EOF
            3: FLOCK  ADVISORY  WRITE 555 08:01:1234 0 EOF
            """
        // Device 0x2a (major 0, minor 42).
        #expect(DeviceLock.holder(in: table, device: 42, inode: 1234) == 4242)
        // The same inode on another device (08:01) is another file.
        #expect(DeviceLock.holder(in: table, device: (8 << 8) | 1, inode: 1234) == 555)
        #expect(DeviceLock.holder(in: table, device: 42, inode: 77) == nil, "a POSIX lock is not ucube's flock")
        #expect(DeviceLock.holder(in: table, device: 42, inode: 5) == nil)
        // A /proc/PID/fdinfo text (Linux's fs/proc/fd.c): its lock line says the same, its other lines are skipped.
        let fdinfo =
            "pos:\t0\nflags:\t02100002\nino:\t1234\n" + "lock:\t1: FLOCK  ADVISORY  WRITE 4242 00:2a:1234 0 EOF\n"
        #expect(DeviceLock.holder(in: fdinfo, device: 42, inode: 1234) == 4242)
        #expect(DeviceLock.holder(in: "pos:\t0\nino:\t1234\n", device: 42, inode: 1234) == nil)
    }

    /// The holder's own descriptors say it exactly, whatever other locks come and go in /proc/locks: a flock this
    /// process takes is found in its fdinfo, on that file only, and not once it is released.
    @Test func aHolderIsAskedFromItsOwnDescriptors() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ucube-lock-\(UUID())").path
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer {
            close(fd)
            unlink(path)
        }
        let (device, inode) = try #require(FileStatus.regularFileIdentity(fd))
        #expect(!DeviceLock.holds(pid: getpid(), device: device, inode: inode), "not locked yet")
        try #require(flock(fd, LOCK_EX | LOCK_NB) == 0)
        #expect(DeviceLock.holds(pid: getpid(), device: device, inode: inode))
        #expect(!DeviceLock.holds(pid: getpid(), device: device, inode: inode + 1), "another file")
        #expect(!DeviceLock.holds(pid: getppid(), device: device, inode: inode), "another process")
        #expect(!DeviceLock.holds(pid: 0, device: device, inode: inode))
        #expect(!DeviceLock.holds(pid: -1, device: device, inode: inode))
        try #require(flock(fd, LOCK_UN) == 0)
        #expect(!DeviceLock.holds(pid: getpid(), device: device, inode: inode), "released")
    }

    /// A read of /proc/locks can miss a lock held all along when other locks come and go between its pages (the cold
    /// run of stop 52 took a waiting payment for a dead one so): a lock that seems free is looked for again.
    @Test func aLockMissingFromOneReadIsLookedForAgain() {
        let held = Data("2: FLOCK  ADVISORY  WRITE 4242 00:2a:1234 0 EOF\n".utf8)
        let shifted = Data("1: FLOCK  ADVISORY  WRITE 100 00:2a:77 0 EOF\n".utf8)
        var reads = 0
        let found = DeviceLock.holder(device: 42, inode: 1234) {
            reads += 1
            return reads == 1 ? shifted : held
        }
        #expect(found == 4242)
        #expect(reads == 2)
        // A lock that is free is called free after the reads, not sooner and not later.
        reads = 0
        #expect(
            DeviceLock.holder(device: 42, inode: 1234) {
                reads += 1; return shifted
            } == nil)
        #expect(reads == DeviceLock.tableReads)
        // A table that cannot be read is not read again.
        reads = 0
        #expect(
            DeviceLock.holder(device: 42, inode: 1234) {
                reads += 1; return nil
            } == nil)
        #expect(reads == 1)
    }
}

/// `simulate --vendor-app`'s hint names an address an app can reach: never a wildcard it listens on.
struct VendorAppHintTests {
    @Test func aWildcardIsNotOfferedAsTheAddress() {
        #expect(!UCube.Simulate.vendorAppHint(host: "0.0.0.0", port: 21350).contains("0.0.0.0"))
        #expect(UCube.Simulate.vendorAppHint(host: "0.0.0.0", port: 21350).contains("port 21350"))
        #expect(UCube.Simulate.vendorAppHint(host: "127.0.0.1", port: 21350).contains("10.0.2.2:21350"))
        #expect(UCube.Simulate.vendorAppHint(host: "192.168.1.20", port: 21350).contains("192.168.1.20:21350"))
    }
}
