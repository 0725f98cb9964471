import Foundation
import Testing

@testable import UCubeLink

/// No file ucube writes follows a link, and no directory it keeps state in is shared (issue: "the device lock follows
/// a symlink and truncates its target", "an existing $XDG_RUNTIME_DIR/ucube is used whoever owns it").
@Suite struct PrivateFileTests {
    final class Scratch {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ucube-private-\(UUID())").path
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    @Test(arguments: [PrivateFile.Kind.state, .output])
    func aLinkIsNeverFollowedAndItsTargetIsUntouched(kind: PrivateFile.Kind) throws {
        let scratch = try Scratch()
        let target = scratch.path + "/journal.jsonl"
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: target))
        let link = scratch.path + "/lock-sim"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(throws: PrivateFileError(path: link, problem: .symbolicLink)) {
            try PrivateFile.write(Array("1234\n".utf8), to: link, kind: kind)
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious\n")
        #expect(throws: PrivateFileError(path: link, problem: .symbolicLink)) { try PrivateFile.checkNotALink(link) }
    }

    /// A FIFO in a file's place is refused at once (opened non-blocking), for state files and outputs alike.
    @Test func aFIFOIsRefusedWithoutWaiting() throws {
        let scratch = try Scratch()
        let fifo = scratch.path + "/journal.jsonl"
        #expect(mkfifo(fifo, 0o600) == 0)
        for kind in [PrivateFile.Kind.state, .output] {
            #expect(throws: PrivateFileError.self) { try PrivateFile.write([0x41], to: fifo, kind: kind) }
        }
    }

    /// A character device is a valid output (`--receipt-file /dev/null`), never a state file.
    @Test func aDeviceIsAnOutputNotAStateFile() throws {
        try PrivateFile.write([0x41], to: "/dev/null", kind: .output)
        #expect(throws: PrivateFileError(path: "/dev/null", problem: .notARegularFile)) {
            try PrivateFile.write([0x41], to: "/dev/null", kind: .state)
        }
    }

    @Test func aDirectoryOthersCanWriteIsRefused() throws {
        let scratch = try Scratch()
        let directory = scratch.path + "/ucube"
        try PrivateFile.ensureDirectory(directory)
        var info = stat()
        #expect(stat(directory, &info) == 0 && info.st_mode & 0o777 == 0o700)
        for mode: mode_t in [0o777, 0o770, 0o702] {
            #expect(chmod(directory, mode) == 0)
            #expect(throws: PrivateFileError(path: directory, problem: .writableByOthers(mode: mode))) {
                try PrivateFile.ensureDirectory(directory)
            }
        }
        #expect(chmod(directory, 0o755) == 0)
        try PrivateFile.checkDirectory(directory)
    }

    /// Another user's directory or file is refused. Changing an owner needs root: the test runs where it can (CI runs
    /// as root) and says so where it cannot.
    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root"))
    func anotherUsersDirectoryOrFileIsRefused() throws {
        let scratch = try Scratch()
        let directory = scratch.path + "/ucube"
        try PrivateFile.ensureDirectory(directory)
        let file = directory + "/journal.jsonl"
        try PrivateFile.write([0x41], to: file, kind: .state)
        #expect(chown(file, 65534, 65534) == 0)
        #expect(throws: PrivateFileError(path: file, problem: .ownedByAnotherUser(uid: 65534))) {
            try PrivateFile.write([0x42], to: file, kind: .state)
        }
        #expect(chown(directory, 65534, 65534) == 0)
        #expect(throws: PrivateFileError(path: directory, problem: .ownedByAnotherUser(uid: 65534))) {
            try PrivateFile.ensureDirectory(directory)
        }
        // The journal's own writer refuses it too.
        #expect(throws: AppendError.self) { try AppendOnlyFile(path: file).append([0x43]) }
    }
}
