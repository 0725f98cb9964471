import Foundation
import UCubeCrypto
import UCubeProtocol

/// Signed firmware images for the simulator (format and signature: `FirmwareImageChoices`), and a default TMS-style
/// catalogue of items newer than `SimulatorChoices.DefaultDevice`. Images are produced in chunks and written to
/// files as a stream, so an 8 MB image costs no more memory than a 1 MB one.
package enum SimulatedFirmware {
    /// The payload is produced and written in chunks of this size.
    static let chunkSize = 64 * 1024

    /// One item of `catalogue.json` (shared contract with the TMS simulator and the update command).
    package struct CatalogueItem: Codable, Sendable, Hashable {
        package var type: Int
        package var label: String
        package var version: String
        package var minVersion: String
        package var ciphered: Bool
        /// File name of the image, beside `catalogue.json`.
        package var image: String
        /// File name of the raw DER signature, beside `catalogue.json`.
        package var signature: String

        package init(
            type: Int, label: String, version: String, minVersion: String, ciphered: Bool, image: String,
            signature: String
        ) {
            self.type = type
            self.label = label
            self.version = version
            self.minVersion = minVersion
            self.ciphered = ciphered
            self.image = image
            self.signature = signature
        }

        private enum CodingKeys: String, CodingKey {
            case type, label, version, minVersion = "min_version", ciphered, image, signature
        }
    }

    /// `catalogue.json`: `{"items":[…]}`.
    package struct Catalogue: Codable, Sendable, Hashable {
        package var items: [CatalogueItem]
        package init(items: [CatalogueItem]) { self.items = items }
    }

    /// What `writeCatalogue` writes by default: an SVPP firmware newer than the default device's 6.0.0.54 and
    /// mandatory (min_version = version), and ICC / NFC EMV configurations one step newer than EA 1.0.0.5 / EB
    /// 1.0.0.4, optional (min_version = the device's).
    package struct ItemSpec: Sendable, Hashable {
        package var type: FirmwareItemType
        package var label: String
        package var version: FirmwareVersion
        package var minVersion: FirmwareVersion
        package var payloadSize: Int
        package var fileStem: String

        package init(
            type: FirmwareItemType, label: String, version: FirmwareVersion, minVersion: FirmwareVersion,
            payloadSize: Int, fileStem: String
        ) {
            self.type = type
            self.label = label
            self.version = version
            self.minVersion = minVersion
            self.payloadSize = payloadSize
            self.fileStem = fileStem
        }
    }

    package static let defaultItems = defaultItems(firmwareKiB: defaultFirmwareKiB)

    /// The SVPP firmware image's size in the default catalogue, in KiB, and the sizes `ucube simulate --tms
    /// --tms-firmware-size` may ask for instead (a larger image makes a longer update: 2,040 bytes a Load block).
    package static let defaultFirmwareKiB = 256
    package static let catalogueFirmwareSizes = 16...8192

    /// The default catalogue with an SVPP firmware image of `firmwareKiB` KiB.
    package static func defaultItems(firmwareKiB: Int) -> [ItemSpec] {
        [
            ItemSpec(
                type: .svppFirmware, label: "SVPP firmware", version: FirmwareVersion([6, 0, 1, 0]),
                minVersion: FirmwareVersion([6, 0, 1, 0]), payloadSize: firmwareKiB * 1024, fileStem: "svpp"),
            ItemSpec(
                type: .iccConfig, label: "ICC EMV configuration", version: FirmwareVersion([1, 0, 0, 6]),
                minVersion: SimulatorChoices.DefaultDevice.iccConfigVersion, payloadSize: 16 * 1024,
                fileStem: "icc-config"),
            ItemSpec(
                type: .nfcConfig, label: "NFC EMV configuration", version: FirmwareVersion([1, 0, 0, 5]),
                minVersion: SimulatorChoices.DefaultDevice.nfcConfigVersion, payloadSize: 16 * 1024,
                fileStem: "nfc-config"),
        ]
    }

    // MARK: Images in memory

    /// A whole image in memory: header + `payloadSize` seeded bytes.
    package static func makeImage(
        type: FirmwareItemType, version: FirmwareVersion, payloadSize: Int, seed: UInt64 = 1
    ) -> [UInt8] {
        var image = header(type: type, version: version, payloadSize: payloadSize).encoded()
        image.reserveCapacity(image.count + payloadSize)
        forEachPayloadChunk(payloadSize: payloadSize, seed: seed) { image += $0 }
        return image
    }

    /// The DER signature of `image` under the test code-signing key.
    package static func sign(_ image: [UInt8]) throws(CryptoError) -> [UInt8] {
        try CodeSigning.sign(image)
    }

    // MARK: Images in files (streaming)

    /// Writes an image of `payloadSize` seeded bytes to `imagePath` chunk by chunk, and its DER signature to
    /// `signaturePath` (when given). Returns the signature.
    @discardableResult
    package static func writeImage(
        type: FirmwareItemType, version: FirmwareVersion, payloadSize: Int, seed: UInt64 = 1,
        imagePath: String, signaturePath: String? = nil
    ) throws -> [UInt8] {
        let signer = try CodeSigning.Signer()
        let handle = try createFile(imagePath)
        defer { try? handle.close() }
        let head = header(type: type, version: version, payloadSize: payloadSize).encoded()
        try signer.update(head)
        try write(handle, head, imagePath)
        var failure: (any Error)?
        forEachPayloadChunk(payloadSize: payloadSize, seed: seed) { chunk in
            guard failure == nil else { return }
            do {
                try signer.update(chunk)
                try write(handle, chunk, imagePath)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        let signature = try signer.finish()
        if let signaturePath {
            let sigHandle = try createFile(signaturePath)
            defer { try? sigHandle.close() }
            try write(sigHandle, signature, signaturePath)
        }
        return signature
    }

    /// Writes `catalogue.json` and each item's image and signature into `directory` (created if needed).
    @discardableResult
    package static func writeCatalogue(
        directory: String, items: [ItemSpec] = defaultItems, seed: UInt64 = 1
    ) throws -> Catalogue {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw SimulatorError(.imageUnwritable, "cannot create \(directory): \(error)")
        }
        var entries: [CatalogueItem] = []
        for (index, item) in items.enumerated() {
            let image = "\(item.fileStem)-\(item.version).bin"
            let signature = "\(item.fileStem)-\(item.version).sig"
            try writeImage(
                type: item.type, version: item.version, payloadSize: item.payloadSize, seed: seed &+ UInt64(index),
                imagePath: directory + "/" + image, signaturePath: directory + "/" + signature)
            entries.append(
                CatalogueItem(
                    type: Int(item.type.rawValue), label: item.label, version: item.version.description,
                    minVersion: item.minVersion.description, ciphered: false, image: image, signature: signature))
        }
        let catalogue = Catalogue(items: entries)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try encoder.encode(catalogue).write(
                to: URL(fileURLWithPath: directory + "/catalogue.json"), options: .atomic)
        } catch {
            throw SimulatorError(.imageUnwritable, "cannot write \(directory)/catalogue.json: \(error)")
        }
        return catalogue
    }

    // MARK: Helpers

    static func header(type: FirmwareItemType, version: FirmwareVersion, payloadSize: Int) -> FirmwareImageHeader {
        precondition(payloadSize >= 0 && payloadSize <= Int(FirmwareImageChoices.maxPayloadLength), "payload size")
        return FirmwareImageHeader(type: type, version: version, payloadLength: UInt32(payloadSize))
    }

    static func forEachPayloadChunk(payloadSize: Int, seed: UInt64, _ body: ([UInt8]) -> Void) {
        var generator = SeededGenerator(seed: seed)
        var left = payloadSize
        while left > 0 {
            let count = min(chunkSize, left)
            body(generator.bytes(count))
            left -= count
        }
    }

    private static func createFile(_ path: String) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw SimulatorError(.imageUnwritable, "cannot create \(path)")
        }
        return handle
    }

    private static func write(_ handle: FileHandle, _ bytes: [UInt8], _ path: String) throws {
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            throw SimulatorError(.imageUnwritable, "cannot write \(path): \(error)")
        }
    }
}
