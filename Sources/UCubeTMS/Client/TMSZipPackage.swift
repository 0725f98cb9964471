import Foundation
import ZIPFoundation

/// One binary a download gave, as a spec §10.5 package file (`LLLL` signature, [`LLLL` key], blocks, `00 00`).
package struct TMSDownloadedPackage: Sendable, Hashable {
    /// The binary's name: the zip manifest's, or the download file's name for a block-stream answer.
    package let name: String
    package let path: String
}

/// The answer to a binary request (spec §10.5): the form it came in, the request form that got it, and the packages
/// written. A block-stream answer gives one package; a zip gives one per binary of its manifest.
package struct TMSDownload: Sendable, Hashable {
    package enum Format: String, Sendable, Hashable {
        case octetStream = "application/octet-stream"
        case zip = "application/zip"

        /// The format a `Content-Type` names: its media type (before any `;`), without case (PROJECT CHOICE; the SDK
        /// compares the whole header as a string, spec §10.5). nil for any other type.
        package init?(contentType: String) {
            let media =
                contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            switch media {
            case TMSChoices.binaryStreamType: self = .octetStream
            case TMSChoices.binaryZipType: self = .zip
            default: return nil
            }
        }
    }
    package let format: Format
    package let dialect: TMSDialect
    /// Bytes received.
    package let bytes: Int64
    package let packages: [TMSDownloadedPackage]

    /// Where the package `index` (0-based) of a download to `path` is written: `path`, then `path.2`, `path.3` ….
    package static func packagePath(_ path: String, index: Int) -> String {
        index == 0 ? path : "\(path).\(index + 1)"
    }

    /// Every file a download to `path` may leave: the packages, the zip and the partial files.
    package static func files(at path: String) -> [String] {
        [path + ".part", path + ".zip", path + ".zip.part"]
            + (0..<TMSChoices.maximumZipBinaries).map { packagePath(path, index: $0) }
    }
}

/// Reads the current SDK's zip answer (spec §10.5, L:mdm.DownloadBinaryTask.parseZipResponse, L:mdm.Utils.unzip):
/// entries `key` (the enciphered session key, for every binary), `manifest.json` `{"binary_list":[NAME, …]}`, and
/// for each NAME the entry `NAME.sig` (the signature) and the entry `NAME.bin` (`LLLL` + block …, up to `00 00` or
/// the end). A NAME without both is skipped (`skipped`); a missing `key` or manifest, or no binary at all, fails.
/// Bounded by `TMSChoices`' zip limits.
///
/// Stricter than the SDK, which takes the first entry that starts with NAME (PROJECT CHOICE, issue 39): names are
/// matched exactly (with prefixes, `fw` took `fw2`'s image), a manifest that names a binary twice is refused (it was
/// installed, then reported "not installed"), so is an archive that holds one name twice, and every entry's CRC-32
/// is compared with the archive's while it is read, so a corrupted download is refused before a byte of it reaches
/// the terminal.
package enum TMSZipPackage {
    package struct Binary: Sendable, Hashable {
        package let name: String
        /// The §10.5 package: `LLLL` signature, [`LLLL` key when ciphered], the blocks, `00 00`.
        package let package: [UInt8]
    }

    /// Reads the archive at `zipPath` (entries into memory, bounded) and makes the packages. `url` names the
    /// request in errors.
    package static func read(zipPath: String, ciphered: Bool, url: String) throws(TMSError) -> (
        binaries: [Binary], skipped: [String]
    ) {
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: zipPath), accessMode: .read)
        } catch {
            throw TMSError(.malformedReply, "\(url): the zip answer is not a zip archive", detail: "\(error)")
        }
        return try packages(entries: try entries(archive, url: url), ciphered: ciphered, url: url)
    }

    /// `read` over an answer in memory (the fuzz target).
    package static func read(bytes: [UInt8], ciphered: Bool, url: String) throws(TMSError) -> (
        binaries: [Binary], skipped: [String]
    ) {
        let archive: Archive
        do {
            archive = try Archive(data: Data(bytes), accessMode: .read)
        } catch {
            throw TMSError(.malformedReply, "\(url): the zip answer is not a zip archive", detail: "\(error)")
        }
        return try packages(entries: try entries(archive, url: url), ciphered: ciphered, url: url)
    }

    /// The file entries of the archive, in archive order, each at most `TMSChoices.maximumBinary` bytes and all
    /// together too; at most `TMSChoices.maximumZipEntries` entries.
    static func entries(_ archive: Archive, url: String) throws(TMSError) -> [(name: String, bytes: [UInt8])] {
        func bad(_ why: String) -> TMSError { TMSError(.malformedReply, "\(url): the zip answer \(why)") }
        var out: [(name: String, bytes: [UInt8])] = []
        var budget = Int(TMSChoices.maximumBinary)
        var count = 0
        for entry in archive {
            count += 1
            guard count <= TMSChoices.maximumZipEntries else {
                throw bad("has more than \(TMSChoices.maximumZipEntries) entries")
            }
            let name = entry.path
            guard isSafe(name) else {
                throw bad("has an entry name that is not a plain relative name: \(printable(name))")
            }
            switch entry.type {
            case .directory: continue
            case .symlink: throw bad("has a symbolic link, \(printable(name))")
            case .file: break
            }
            guard entry.uncompressedSize >= 0, entry.uncompressedSize <= Int64(budget) else {
                throw bad(
                    "entry \(printable(name)) announces \(entry.uncompressedSize) bytes, over the \(TMSChoices.maximumBinary)-byte limit"
                )
            }
            guard !out.contains(where: { $0.name == name }) else {
                throw bad("holds the entry \(printable(name)) twice")
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(Int(entry.uncompressedSize))
            let limit = Int(entry.uncompressedSize)
            do {
                let computed = try archive.extract(entry, skipCRC32: false) { chunk in
                    guard bytes.count + chunk.count <= limit else { throw Overflow() }
                    bytes += chunk
                }
                guard computed == entry.checksum else {
                    throw bad(
                        "entry \(printable(name)) fails its CRC-32 check (the archive says \(hex32(entry.checksum)), its bytes give \(hex32(computed))): the download is corrupted"
                    )
                }
            } catch let error as TMSError {
                throw error
            } catch is Overflow {
                throw bad("entry \(printable(name)) inflates past its announced \(limit) bytes")
            } catch {
                throw TMSError(
                    .malformedReply, "\(url): the zip answer's entry \(printable(name)) does not extract",
                    detail: "\(error)")
            }
            budget -= bytes.count
            out.append((name, bytes))
        }
        return out
    }

    private struct Overflow: Error {}

    /// The packages of the manifest's binaries (pure).
    static func packages(entries: [(name: String, bytes: [UInt8])], ciphered: Bool, url: String) throws(TMSError) -> (
        binaries: [Binary], skipped: [String]
    ) {
        func bad(_ why: String) -> TMSError { TMSError(.malformedReply, "\(url): the zip answer \(why)") }
        guard let key = entries.first(where: { $0.name == "key" })?.bytes else { throw bad("has no key entry") }
        guard let manifestBytes = entries.first(where: { $0.name == "manifest.json" })?.bytes else {
            throw bad("has no manifest.json")
        }
        guard manifestBytes.count <= TMSChoices.maximumZipManifest,
            let manifest = (try? JSONSerialization.jsonObject(with: Data(manifestBytes))) as? [String: Any],
            let list = manifest["binary_list"] as? [Any]
        else { throw bad("has a manifest.json that is not {\"binary_list\":[…]}") }
        let names = list.compactMap { $0 as? String }
        guard names.count == list.count, !names.isEmpty, names.allSatisfy({ !$0.isEmpty }) else {
            throw bad("lists no binary, or one that is not a name, in manifest.json")
        }
        guard names.count <= TMSChoices.maximumZipBinaries else {
            throw bad("lists \(names.count) binaries; at most \(TMSChoices.maximumZipBinaries) are taken")
        }
        if let twice = names.enumerated().first(where: { names[..<$0.offset].contains($0.element) })?.element {
            throw bad("names the binary \(printable(twice)) twice in manifest.json")
        }
        if ciphered {
            guard !key.isEmpty, key.count <= min(TMSChoices.maximumZipKey, 0xFFFF) else {
                throw bad("has a key of \(key.count) bytes for a ciphered item")
            }
        }
        var binaries: [Binary] = []
        var skipped: [String] = []
        for name in names {
            let signature = entries.first { $0.name == name + ".sig" }?.bytes
            let blocks = entries.first { $0.name == name + ".bin" }?.bytes
            guard let signature, let blocks else {
                skipped.append(name)
                continue
            }
            guard !signature.isEmpty, signature.count <= 0xFFFF else {
                throw bad("has a signature of \(signature.count) bytes for \(printable(name))")
            }
            var package = prefixed(signature)
            if ciphered { package += prefixed(key) }
            package += try terminated(blocks, name: name, url: url)
            binaries.append(Binary(name: name, package: package))
        }
        guard !binaries.isEmpty else { throw bad("has no binary with both its .sig and .bin entries") }
        return (binaries, skipped)
    }

    /// `blocks` with its `00 00` end, added when the entry stops right after a block (the SDK reads to the end).
    private static func terminated(_ blocks: [UInt8], name: String, url: String) throws(TMSError) -> [UInt8] {
        var offset = 0
        while offset + 2 <= blocks.count {
            let length = Int(blocks[offset]) << 8 | Int(blocks[offset + 1])
            if length == 0 {
                guard offset + 2 == blocks.count else {
                    throw TMSError(
                        .malformedReply,
                        "\(url): the zip answer's \(printable(name)) .bin has bytes after its 00 00 end")
                }
                return blocks
            }
            offset += 2 + length
        }
        guard offset == blocks.count else {
            throw TMSError(.malformedReply, "\(url): the zip answer's \(printable(name)) .bin ends inside a block")
        }
        return blocks + [0, 0]
    }

    private static func prefixed(_ bytes: [UInt8]) -> [UInt8] {
        [UInt8(truncatingIfNeeded: bytes.count >> 8), UInt8(truncatingIfNeeded: bytes.count)] + bytes
    }

    /// A relative name without `..` components, backslashes or control characters (entries are never written under
    /// their names, but a name like that has no business in the answer).
    static func isSafe(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains("\\") else { return false }
        guard name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else { return false }
        return !name.split(separator: "/", omittingEmptySubsequences: false).contains("..")
    }

    private static func hex32(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }

    private static func printable(_ name: String) -> String {
        "\"" + String(name.unicodeScalars.prefix(64).map { $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
            + "\""
    }
}
