import Foundation
import Testing

/// libdbus-1, GNU readline and libcrypto are loaded when a command first calls them (CDBus, CReadline, CLibCrypto and
/// CLazyLibrary), not by the dynamic loader at every start: the binary must not name them in its NEEDED entries. The
/// functions themselves are exercised by the Bluetooth (BlueZ mock), shell and crypto tests.
struct LazyLibrariesTests {
    static let lazy = ["libdbus-1", "libreadline", "libcrypto"]

    @Test func theBinaryDoesNotLinkThem() throws {
        let needed = try ELFDynamicSection.needed(UCubeSandbox.binary)
        #expect(needed.contains { $0.hasPrefix("libc.so") }, "the parse found no libc: \(needed)")
        for library in Self.lazy {
            #expect(!needed.contains { $0.hasPrefix(library + ".so") }, "\(library) is NEEDED: \(needed)")
        }
    }

    /// The dynamic loader's own account (LD_DEBUG=files names every object it loads, dlopen included): `--version`
    /// and a command on the built-in simulator load none of them, and the shell's script mode does not load readline.
    @Test(arguments: [["--version"], ["--device", "sim", "info"]])
    func aCommandThatDoesNotUseThemLeavesThemUnloaded(arguments: [String]) async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["LD_DEBUG"] = "files"
        let run = try await sandbox.run(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("file=libc.so"), "LD_DEBUG said nothing: \(run.stderr.prefix(400))")
        for library in Self.lazy {
            #expect(!run.stderr.contains("file=\(library).so"), "\(arguments) loaded \(library)")
        }
    }
}

/// The DT_NEEDED entries of a 64-bit little-endian ELF file: the dynamic section, and the string table it links to.
enum ELFDynamicSection {
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    static func needed(_ url: URL) throws -> [String] {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        func read(_ offset: UInt64, _ count: Int) throws -> [UInt8] {
            try handle.seek(toOffset: offset)
            let bytes = [UInt8](try handle.read(upToCount: count) ?? Data())
            guard bytes.count == count else { throw Malformed(description: "short read at \(offset)") }
            return bytes
        }
        func integer(_ bytes: [UInt8], _ at: Int, _ size: Int) -> UInt64 {
            (0..<size).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
        }
        let header = try read(0, 64)
        guard header.prefix(4) == [0x7F, 0x45, 0x4C, 0x46], header[4] == 2, header[5] == 1 else {
            throw Malformed(description: "not a 64-bit little-endian ELF file")
        }
        let sectionsAt = integer(header, 0x28, 8)
        let sectionSize = Int(integer(header, 0x3A, 2))
        let sectionCount = Int(integer(header, 0x3C, 2))
        let sections = try (0..<sectionCount).map { try read(sectionsAt + UInt64($0 * sectionSize), sectionSize) }
        let dynamicType: UInt64 = 6  // SHT_DYNAMIC
        guard let dynamic = sections.first(where: { integer($0, 4, 4) == dynamicType }) else {
            throw Malformed(description: "no dynamic section")
        }
        let strings = sections[Int(integer(dynamic, 40, 4))]  // sh_link
        let stringTable = try read(integer(strings, 24, 8), Int(integer(strings, 32, 8)))
        let entries = try read(integer(dynamic, 24, 8), Int(integer(dynamic, 32, 8)))
        var needed: [String] = []
        for entry in stride(from: 0, to: entries.count - 15, by: 16) {
            let tag = integer(entries, entry, 8)
            if tag == 0 { break }  // DT_NULL
            guard tag == 1 else { continue }  // DT_NEEDED
            let name = Int(integer(entries, entry + 8, 8))
            guard name < stringTable.count else { throw Malformed(description: "a name outside the string table") }
            needed.append(String(decoding: stringTable[name...].prefix { $0 != 0 }, as: UTF8.self))
        }
        return needed
    }
}
