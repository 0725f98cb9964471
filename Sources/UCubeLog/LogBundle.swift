import Foundation
import UCubeProtocol
import ZIPFoundation

/// The log bundle sent to the TMS (spec §10.7: "Zip all log files … delete local logs after HTTP 200") or written
/// with `send-logs --output`: one zip entry `logs/<file>` per file of the log directory (spec §11, Android naming).
///
/// Every file is scrubbed again while it is zipped (defence in depth: a file dropped in the directory by another
/// tool, or a line written before a masking rule existed, still leaves without a PAN). Files are read in chunks,
/// never whole.
package enum LogBundle {
    /// The files a bundle takes: regular files of the directory (not symbolic links, which could point anywhere),
    /// not hidden (the lock file), sorted by name.
    package static func files(in logDirectory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: logDirectory)) ?? []
        return names.filter { name in
            guard !name.hasPrefix(".") else { return false }
            let type = (try? FileManager.default.attributesOfItem(atPath: logDirectory + "/" + name))?[.type]
            return type as? FileAttributeType == .typeRegular
        }.sorted()
    }

    /// Zips the scrubbed log files of `logDirectory` into a new file at `zipPath` (which must not exist) and
    /// returns the entry names. An empty or missing directory gives an error, not an empty bundle.
    @discardableResult
    package static func make(from logDirectory: String, to zipPath: String) throws(LogBundleError) -> [String] {
        let names = files(in: logDirectory)
        guard !names.isEmpty else {
            throw LogBundleError(.noLogs, "no log files in \(logDirectory)")
        }
        guard !FileManager.default.fileExists(atPath: zipPath) else {
            throw LogBundleError(.exists, "\(zipPath) already exists")
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ucube-logs-\(ProcessInfo.processInfo.globallyUniqueString)")
        do {
            try FileManager.default.createDirectory(
                at: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw LogBundleError(.io, "cannot create a scratch directory: \(error.localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(at: scratch) }

        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: zipPath), accessMode: .create)
        } catch {
            throw LogBundleError(.io, "cannot create \(zipPath): \(error.localizedDescription)")
        }
        // The bundle is the user's alone (its content is scrubbed, but it is still a log of payments).
        chmod(zipPath, 0o600)
        var entries: [String] = []
        do {
            for name in names {
                let scrubbed = scratch.appendingPathComponent(name)
                try scrubCopy(from: logDirectory + "/" + name, to: scrubbed.path)
                let entry = LogChoices.bundleEntryPrefix + name
                try archive.addEntry(with: entry, fileURL: scrubbed, compressionMethod: .deflate)
                entries.append(entry)
            }
        } catch let error as LogBundleError {
            try? FileManager.default.removeItem(atPath: zipPath)
            throw error
        } catch {
            try? FileManager.default.removeItem(atPath: zipPath)
            throw LogBundleError(.io, "cannot write \(zipPath): \(error.localizedDescription)")
        }
        return entries
    }

    /// Deletes the log files a bundle takes (after the TMS answered HTTP 200, spec §10.7). The lock file stays.
    package static func deleteLogs(in logDirectory: String) throws(LogBundleError) {
        for name in files(in: logDirectory) {
            do {
                try FileManager.default.removeItem(atPath: logDirectory + "/" + name)
            } catch {
                throw LogBundleError(.io, "cannot delete \(name): \(error.localizedDescription)")
            }
        }
    }

    /// Copies a file line by line through the scrubber, in chunks. A line longer than
    /// `LogChoices.maximumLineLength` is cut at a byte that cannot belong to a PAN or track data.
    static func scrubCopy(from source: String, to destination: String) throws(LogBundleError) {
        guard let input = FileHandle(forReadingAtPath: source) else {
            throw LogBundleError(.io, "cannot read \(source)")
        }
        defer { try? input.close() }
        guard
            FileManager.default.createFile(atPath: destination, contents: nil, attributes: [.posixPermissions: 0o600]),
            let output = FileHandle(forWritingAtPath: destination)
        else {
            throw LogBundleError(.io, "cannot write \(destination)")
        }
        defer { try? output.close() }
        var pending: [UInt8] = []
        do {
            while true {
                guard let chunk = try input.read(upToCount: LogChoices.bundleChunkSize), !chunk.isEmpty else { break }
                pending += chunk
                var cut = pending.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 }
                if cut == nil, pending.count > LogChoices.maximumLineLength {
                    cut = pending.lastIndex { !isPANByte($0) }.map { $0 + 1 } ?? pending.count
                }
                if let cut {
                    try output.write(contentsOf: LogScrubber.scrub(Array(pending[..<cut])))
                    pending.removeFirst(cut)
                }
            }
            if !pending.isEmpty { try output.write(contentsOf: LogScrubber.scrub(pending)) }
        } catch {
            throw LogBundleError(.io, "cannot copy \(source): \(error.localizedDescription)")
        }
    }

    /// Digits, separators and hex letters: what a PAN, a BCD dump or track data can be made of.
    private static func isPANByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "="),
            UInt8(ascii: "A")...UInt8(ascii: "F"), UInt8(ascii: "a")...UInt8(ascii: "f"):
            true
        default:
            false
        }
    }
}

/// A log bundle that could not be made.
package struct LogBundleError: CodedError {
    package enum Code: Sendable, Hashable {
        case noLogs, exists, io
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
