import UCubeProtocol

/// A binary that can be loaded onto the terminal: a signature, an optional ciphered session key, and blocks read
/// one at a time (never the whole binary in memory).
package protocol LoadableBinary: Sendable {
    /// For messages and progress ("svpp-6.0.1.0.bin").
    var name: String { get }
    /// Opens and validates the binary (its whole layout, before anything is sent to the terminal).
    func open() async throws(UpdateError) -> BinaryBlocks
}

/// An opened binary: what InstallForLoad needs, the totals for progress, and a cursor over the blocks.
package struct BinaryBlocks: Sendable {
    package let signature: [UInt8]
    /// The ciphered session key (InstallForLoad method DYNAMIC); `nil` for a plain binary (method PLAIN).
    package let sessionKey: [UInt8]?
    package let blockCount: Int
    /// Sum of the block sizes.
    package let totalBytes: Int
    let reader: @Sendable (_ index: Int, _ position: Int) async throws(UpdateError) -> (block: [UInt8], next: Int)
    let firstPosition: Int

    /// A cursor at the first block.
    package func makeCursor() -> BlockCursor {
        BlockCursor(blocks: self, index: 0, position: firstPosition)
    }
}

/// Reads the blocks of a `BinaryBlocks` in order, one file read per block.
package struct BlockCursor: Sendable {
    let blocks: BinaryBlocks
    package private(set) var index: Int
    var position: Int

    /// The next block, or `nil` after the last.
    package mutating func next() async throws(UpdateError) -> [UInt8]? {
        guard index < blocks.blockCount else { return nil }
        let (block, next) = try await blocks.reader(index, position)
        index += 1
        position = next
        return block
    }
}

// MARK: - §10.5 TMS download

/// The layout of a §10.5 download: `LLLL` + signature, [`LLLL` + ciphered session key], `LLLL` + block …, `00 00`
/// (2-byte big-endian lengths). Pure: reads through a `ByteSource`, keeps only the signature and key.
package struct BinaryPackageLayout: Sendable, Hashable {
    package var signature: [UInt8]
    package var sessionKey: [UInt8]?
    /// Offset of the first block's length.
    package var firstBlockOffset: Int
    package var blockCount: Int
    package var totalBytes: Int

    /// Scans the whole package: every length, the terminator, nothing after it. `ciphered` says whether a session
    /// key follows the signature (the TMS configuration's `ciphered`, spec §10.4).
    package static func scan(_ source: some ByteSource, ciphered: Bool) throws(UpdateError) -> BinaryPackageLayout {
        var offset = 0
        func length(_ what: String) throws(UpdateError) -> Int {
            let bytes = try source.read(at: offset, count: 2)
            guard bytes.count == 2 else {
                throw UpdateError(
                    .truncated, "the package ends at byte \(offset + bytes.count) where the \(what) length should be")
            }
            offset += 2
            return Int(bytes[0]) << 8 | Int(bytes[1])
        }
        func field(_ what: String) throws(UpdateError) -> [UInt8] {
            let count = try length(what)
            guard count > 0 else { throw UpdateError(.badLength, "the package's \(what) is empty (length 00 00)") }
            let bytes = try source.read(at: offset, count: count)
            guard bytes.count == count else {
                throw UpdateError(
                    .truncated, "the \(what) announces \(count) bytes but the package has \(bytes.count) left")
            }
            offset += count
            return bytes
        }
        let signature = try field("signature")
        let sessionKey = ciphered ? try field("ciphered session key") : nil
        let firstBlockOffset = offset
        var blockCount = 0
        var totalBytes = 0
        while true {
            let count = try length("block \(blockCount + 1)")
            if count == 0 { break }
            guard count <= Load.maxBlockSize else {
                throw UpdateError(
                    .badLength, "block \(blockCount + 1) is \(count) bytes; a Load carries at most \(Load.maxBlockSize)"
                )
            }
            guard offset + count <= source.size else {
                throw UpdateError(
                    .truncated,
                    "block \(blockCount + 1) announces \(count) bytes but the package has \(source.size - offset) left")
            }
            offset += count
            blockCount += 1
            totalBytes += count
        }
        guard offset == source.size else {
            throw UpdateError(.trailingBytes, "\(source.size - offset) bytes follow the package's 00 00 terminator")
        }
        guard blockCount > 0 else { throw UpdateError(.emptyBinary, "the package has no block") }
        return BinaryPackageLayout(
            signature: signature, sessionKey: sessionKey, firstBlockOffset: firstBlockOffset, blockCount: blockCount,
            totalBytes: totalBytes)
    }

    /// The block whose length is at `offset`, and the offset of the next length (re-checked: the file may change).
    package static func block(at offset: Int, in source: some ByteSource) throws(UpdateError) -> (
        block: [UInt8], next: Int
    ) {
        let head = try source.read(at: offset, count: 2)
        guard head.count == 2 else { throw UpdateError(.truncated, "the package changed while it was being loaded") }
        let count = Int(head[0]) << 8 | Int(head[1])
        guard count > 0, count <= Load.maxBlockSize else {
            throw UpdateError(.badLength, "the package changed while it was being loaded")
        }
        let block = try source.read(at: offset + 2, count: count)
        guard block.count == count else {
            throw UpdateError(.truncated, "the package changed while it was being loaded")
        }
        return (block, offset + 2 + count)
    }
}

/// A binary downloaded from the TMS (spec §10.5 format), read lazily from a file.
package struct TMSBinaryPackage: LoadableBinary {
    package let path: String
    /// Whether the TMS configuration says `ciphered` (a session key follows the signature).
    package let ciphered: Bool

    package init(path: String, ciphered: Bool = false) {
        self.path = path
        self.ciphered = ciphered
    }

    package var name: String { path.split(separator: "/").last.map(String.init) ?? path }

    package func open() async throws(UpdateError) -> BinaryBlocks {
        let path = path
        let ciphered = ciphered
        let (file, layout) = try await BinaryFile.run { () throws(UpdateError) in
            let file = try BinaryFile(path: path)
            return (file, try BinaryPackageLayout.scan(file, ciphered: ciphered))
        }
        return BinaryBlocks(
            signature: layout.signature, sessionKey: layout.sessionKey, blockCount: layout.blockCount,
            totalBytes: layout.totalBytes,
            reader: { _, position throws(UpdateError) in
                try await BinaryFile.run { () throws(UpdateError) in
                    try BinaryPackageLayout.block(at: position, in: file)
                }
            },
            firstPosition: layout.firstBlockOffset)
    }
}

/// A local image and its detached DER signature (`--file IMAGE --signature SIG`), cut into
/// `FirmwareImageChoices.localBlockSize` blocks (spec §5.2 PROJECT CHOICE), sent as PLAIN.
package struct LocalImage: LoadableBinary {
    package let imagePath: String
    package let signaturePath: String

    package init(imagePath: String, signaturePath: String) {
        self.imagePath = imagePath
        self.signaturePath = signaturePath
    }

    package var name: String { imagePath.split(separator: "/").last.map(String.init) ?? imagePath }

    package func open() async throws(UpdateError) -> BinaryBlocks {
        let imagePath = imagePath
        let signaturePath = signaturePath
        let (file, signature) = try await BinaryFile.run { () throws(UpdateError) in
            let signatureFile = try BinaryFile(path: signaturePath)
            // The signature travels in InstallForLoad with the method and a 2-byte length: it must fit one frame.
            let limit = PayloadLimits.maxPayloadSize - 3
            guard signatureFile.size > 0, signatureFile.size <= limit else {
                throw UpdateError(
                    .badLength,
                    "the signature file \(signaturePath) is \(signatureFile.size) bytes; it must be 1 to \(limit)")
            }
            let signature = try signatureFile.read(at: 0, count: signatureFile.size)
            guard signature.count == signatureFile.size else {
                throw UpdateError(.truncated, "the signature file \(signaturePath) shrank while it was read")
            }
            return (try BinaryFile(path: imagePath), signature)
        }
        guard file.size > 0 else { throw UpdateError(.emptyBinary, "the image \(imagePath) is empty") }
        let blockSize = FirmwareImageChoices.localBlockSize
        let size = file.size
        return BinaryBlocks(
            signature: signature, sessionKey: nil, blockCount: (size + blockSize - 1) / blockSize, totalBytes: size,
            reader: { _, position throws(UpdateError) in
                let block = try await file.readAsync(at: position, count: min(blockSize, size - position))
                guard block.count == min(blockSize, size - position) else {
                    throw UpdateError(.truncated, "the image \(imagePath) shrank while it was being loaded")
                }
                return (block, position + block.count)
            },
            firstPosition: 0)
    }
}

/// A §10.5 package already in memory (the fuzz targets' virtual terminal loads one).
package struct InMemoryPackage: LoadableBinary {
    package let name: String
    package let bytes: [UInt8]
    package let ciphered: Bool

    package init(name: String, bytes: [UInt8], ciphered: Bool = false) {
        self.name = name
        self.bytes = bytes
        self.ciphered = ciphered
    }

    package func open() async throws(UpdateError) -> BinaryBlocks {
        let source = MemoryByteSource(bytes)
        let layout = try BinaryPackageLayout.scan(source, ciphered: ciphered)
        return BinaryBlocks(
            signature: layout.signature, sessionKey: layout.sessionKey, blockCount: layout.blockCount,
            totalBytes: layout.totalBytes,
            reader: { _, position throws(UpdateError) in try BinaryPackageLayout.block(at: position, in: source) },
            firstPosition: layout.firstBlockOffset)
    }
}
