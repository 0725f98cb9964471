import Foundation
import Testing
import UCubeProtocol
import UCubeSimulator

@testable import UCubeTMS

/// The §10.5 download format and local images, parsed without the terminal: valid layouts and hostile files.
@Suite struct BinaryPackageTests {
    static let signature: [UInt8] = Array(repeating: 0x5A, count: 71)

    static func scan(_ bytes: [UInt8], ciphered: Bool = false) throws(UpdateError) -> BinaryPackageLayout {
        try BinaryPackageLayout.scan(MemoryByteSource(bytes), ciphered: ciphered)
    }

    static func code(_ bytes: [UInt8], ciphered: Bool = false) -> UpdateError.Code? {
        do {
            _ = try scan(bytes, ciphered: ciphered)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func aPlainPackage() throws {
        let layout = try Self.scan(
            package(signature: Self.signature, blocks: [[1, 2, 3], [4], Array(repeating: 9, count: 2040)]))
        #expect(layout.signature == Self.signature)
        #expect(layout.sessionKey == nil)
        #expect(layout.blockCount == 3)
        #expect(layout.totalBytes == 2044)
        #expect(layout.firstBlockOffset == 2 + 71)
    }

    @Test func aCipheredPackageCarriesTheSessionKey() throws {
        let key = [UInt8](repeating: 0xC0, count: 256)
        let layout = try Self.scan(package(signature: Self.signature, key: key, blocks: [[1]]), ciphered: true)
        #expect(layout.sessionKey == key)
        #expect(layout.blockCount == 1)
    }

    @Test func hostilePackagesAreTypedErrors() {
        let good = package(signature: Self.signature, blocks: [[1, 2, 3], [4, 5]])
        #expect(Self.code([]) == .truncated)
        #expect(Self.code([0x00]) == .truncated)
        #expect(Self.code([0x00, 0x00]) == .badLength)  // empty signature
        #expect(Self.code([0x00, 0x10, 1, 2]) == .truncated)  // signature shorter than announced
        #expect(Self.code(Array(good.dropLast())) == .truncated)  // half a terminator
        #expect(Self.code(Array(good.dropLast(2))) == .truncated)  // no terminator
        #expect(Self.code(Array(good.dropLast(3))) == .truncated)  // block shorter than announced
        #expect(Self.code(good + [0xFF]) == .trailingBytes)
        #expect(Self.code(package(signature: Self.signature, blocks: [])) == .emptyBinary)
        #expect(Self.code(package(signature: Self.signature, blocks: [Array(repeating: 1, count: 2041)])) == .badLength)
        #expect(Self.code(package(signature: Self.signature, key: [], blocks: [[1]]), ciphered: true) == .badLength)
        // A plain package read as ciphered: the first block becomes the "key" and the rest no longer adds up, or
        // it does and the layout is different — never a crash.
        _ = Self.code(good, ciphered: true)
        // A block length FF FF is above the Load limit; 07 F8 (2040) with nothing behind it is truncated.
        #expect(Self.code([0x00, 0x01, 0xAA, 0xFF, 0xFF]) == .badLength)
        #expect(Self.code([0x00, 0x01, 0xAA, 0x07, 0xF8]) == .truncated)
    }

    @Test func randomBytesNeverCrash() {
        var random = SeededGenerator(seed: 0x5EED)
        for _ in 0..<2_000 {
            let count = Int.random(in: 0..<64, using: &random)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            // Small lengths so that some inputs get deep into the layout.
            for i in stride(from: 0, to: bytes.count, by: 3) { bytes[i] = 0 }
            _ = Self.code(bytes, ciphered: Bool.random(using: &random))
        }
    }

    @Test func aPackageFileReadsBlockByBlock() async throws {
        let directory = try temporaryDirectory()
        let blocks: [[UInt8]] = [[1, 2, 3], Array(repeating: 7, count: 2040), [9]]
        let path = directory + "/binary.bin"
        try Data(package(signature: Self.signature, blocks: blocks)).write(to: URL(fileURLWithPath: path))
        let opened = try await TMSBinaryPackage(path: path).open()
        #expect(opened.blockCount == 3)
        var cursor = opened.makeCursor()
        var read: [[UInt8]] = []
        while let block = try await cursor.next() { read.append(block) }
        #expect(read == blocks)
    }

    @Test func aLocalImageIsCutInto2040ByteBlocks() async throws {
        let directory = try temporaryDirectory()
        let files = try writeLocalImage(.iccConfig, "1.0.0.6", payloadSize: 5_000, in: directory)
        let opened = try await LocalImage(imagePath: files.image, signaturePath: files.signature).open()
        #expect(opened.totalBytes == 5_013)
        #expect(opened.blockCount == 3)
        #expect(opened.sessionKey == nil)
        var cursor = opened.makeCursor()
        var sizes: [Int] = []
        while let block = try await cursor.next() { sizes.append(block.count) }
        #expect(sizes == [2040, 2040, 933])
    }

    @Test func badLocalFilesAreTypedErrors() async throws {
        let directory = try temporaryDirectory()
        let files = try writeLocalImage(.iccConfig, "1.0.0.6", payloadSize: 10, in: directory)
        await #expect(throws: UpdateError(.fileUnreadable, "")) {
            try await LocalImage(imagePath: directory + "/missing.bin", signaturePath: files.signature).open()
        }
        await #expect(throws: UpdateError(.fileUnreadable, "")) {
            try await LocalImage(imagePath: directory, signaturePath: files.signature).open()  // a directory
        }
        let empty = directory + "/empty.bin"
        try Data().write(to: URL(fileURLWithPath: empty))
        await #expect(throws: UpdateError(.emptyBinary, "")) {
            try await LocalImage(imagePath: empty, signaturePath: files.signature).open()
        }
        await #expect(throws: UpdateError(.badLength, "")) {
            try await LocalImage(imagePath: files.image, signaturePath: empty).open()
        }
        let huge = directory + "/huge.sig"
        try Data(count: 4_000).write(to: URL(fileURLWithPath: huge))
        await #expect(throws: UpdateError(.badLength, "")) {
            try await LocalImage(imagePath: files.image, signaturePath: huge).open()
        }
    }
}
