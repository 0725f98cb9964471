import Foundation
import NIOPosix
import ZIPFoundation

/// The current SDK's zip answer to a binary request (spec §10.5, L:mdm.DownloadBinaryTask.parseZipResponse):
/// entries `key`, `manifest.json` = `{"binary_list":["NAME"]}`, `NAME.sig` and `NAME.bin` (`LL LL` + block …,
/// `00 00`). Built in memory with ZIPFoundation (stored, no compression: the SDK inflates either).
enum TMSZipAnswer {
    /// The Content-Type the SDK compares, as an exact string.
    static let contentType = "application/zip"

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads the image on NIO's thread pool and builds the archive. `corruptOffset`: that image byte is inverted.
    static func build(signature: [UInt8], imagePath: String, name: String, corruptOffset: Int?) async throws -> [UInt8]
    {
        try await NIOThreadPool.singleton.runIfActive {
            var image = try Data(contentsOf: URL(fileURLWithPath: imagePath))
            guard image.count <= TMSSimulatorChoices.maximumZipImage else {
                throw Failure(
                    description: "the image of \(image.count) bytes is over \(TMSSimulatorChoices.maximumZipImage)")
            }
            if let corruptOffset, corruptOffset < image.count {
                let index = image.startIndex + corruptOffset
                image[index] = ~image[index]
            }
            return try archive(signature: signature, image: Array(image), name: name)
        }
    }

    /// The archive's bytes (pure apart from ZIPFoundation's in-memory file).
    static func archive(signature: [UInt8], image: [UInt8], name: String) throws -> [UInt8] {
        let blockSize = TMSSimulatorChoices.binaryBlockSize
        var blocks: [UInt8] = []
        blocks.reserveCapacity(image.count + 2 * (image.count / blockSize + 2))
        var start = 0
        while start < image.count {
            let end = min(start + blockSize, image.count)
            blocks += [UInt8(truncatingIfNeeded: (end - start) >> 8), UInt8(truncatingIfNeeded: end - start)]
            blocks += image[start..<end]
            start = end
        }
        blocks += [0, 0]
        let manifest = try JSONSerialization.data(withJSONObject: ["binary_list": [name]])
        let archive = try Archive(accessMode: .create)
        for (entry, bytes) in [
            ("key", Data()), ("manifest.json", manifest), (name + ".sig", Data(signature)),
            (name + ".bin", Data(blocks)),
        ] {
            try archive.addEntry(
                with: entry, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .none,
                provider: { position, size in bytes.subdata(in: Int(position)..<Int(position) + size) })
        }
        guard let data = archive.data else { throw Failure(description: "the in-memory archive has no data") }
        return Array(data)
    }
}
