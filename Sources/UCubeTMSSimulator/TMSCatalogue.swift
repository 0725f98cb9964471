import Foundation

/// The catalogue directory the simulator serves (shared contract): `catalogue.json` =
/// `{"items":[{"type":0,"label":"SVPP firmware","version":"6.0.1.0","min_version":"6.0.1.0","ciphered":false,
/// "image":"svpp-6.0.1.0.bin","signature":"svpp-6.0.1.0.sig"}]}`, with the image and the raw signature bytes beside it.
/// An item may add `"answer":"zip"`: a current (v3) binary request for it is answered `application/zip` (spec §10.5,
/// `TMSSimulatorChoices`); `"octet-stream"` is the default.
package struct TMSCatalogue: Sendable, Hashable {
    package struct Item: Sendable, Hashable {
        /// §10.4 type (0 SVPP firmware, 3 NFC firmware, 4 ICC config, 5 NFC config, 6 misc, 8 files).
        package let type: Int
        package let label: String
        /// `current_version` in the config answer, "a.b.c.d".
        package let version: String
        package let minimumVersion: String
        package let ciphered: Bool
        /// Absolute path of the image file.
        package let imagePath: String
        /// The signature file's bytes (§10.5 `LL LL` + signature).
        package let signature: [UInt8]
        /// Whether a v3 binary request is answered with a zip rather than the block stream.
        package var answersZip: Bool = false

        /// The zip's binary name: the image file's name without its extension.
        var zipName: String {
            let file = imagePath.split(separator: "/").last.map(String.init) ?? imagePath
            guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return file }
            return String(file[..<dot])
        }
    }

    package let items: [Item]

    package func item(type: Int) -> Item? { items.first { $0.type == type } }

    private struct File: Decodable {
        struct Entry: Decodable {
            let type: Int
            let label: String?
            let version: String
            let min_version: String
            let ciphered: Bool?
            let image: String
            let signature: String
            let answer: String?
        }
        let items: [Entry]
    }

    /// Reads and checks the catalogue in `directory`. Blocking: call from a thread pool.
    package static func load(directory: URL) throws(TMSSimulatorError) -> Self {
        let index = directory.appendingPathComponent(TMSSimulatorChoices.catalogueFileName)
        let data: Data
        do {
            data = try Data(contentsOf: index)
        } catch {
            throw TMSSimulatorError(.invalidCatalogue, "cannot read \(index.path): \(error.localizedDescription)")
        }
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch {
            throw TMSSimulatorError(.invalidCatalogue, "\(index.path) is not a valid catalogue: \(error)")
        }
        var items: [Item] = []
        for entry in file.items {
            let what = "\(index.path) item type \(entry.type)"
            guard items.allSatisfy({ $0.type != entry.type }) else {
                throw TMSSimulatorError(.invalidCatalogue, "\(what) appears twice")
            }
            guard entry.type >= 0, entry.type <= 0xFF else {
                throw TMSSimulatorError(.invalidCatalogue, "\(what): type out of range")
            }
            for (field, value) in [("version", entry.version), ("min_version", entry.min_version)]
            where !isVersion(value) {
                throw TMSSimulatorError(.invalidCatalogue, "\(what): \(field) \"\(value)\" is not a.b.c.d")
            }
            if entry.ciphered == true {
                throw TMSSimulatorError(
                    .invalidCatalogue, "\(what) is ciphered; the simulator serves plain binaries only (no session key)")
            }
            guard [nil, "octet-stream", "zip"].contains(entry.answer) else {
                throw TMSSimulatorError(.invalidCatalogue, "\(what): answer must be \"octet-stream\" or \"zip\"")
            }
            for name in [entry.image, entry.signature] where name.isEmpty || name.contains("/") {
                throw TMSSimulatorError(.invalidCatalogue, "\(what): \"\(name)\" must be a file name beside the index")
            }
            let imageURL = directory.appendingPathComponent(entry.image)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: imageURL.path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            else { throw TMSSimulatorError(.invalidCatalogue, "\(what): image \(imageURL.path) is missing") }
            let signature: Data
            do {
                signature = try Data(contentsOf: directory.appendingPathComponent(entry.signature))
            } catch {
                throw TMSSimulatorError(
                    .invalidCatalogue, "\(what): cannot read signature \(entry.signature): \(error)")
            }
            guard !signature.isEmpty, signature.count <= TMSSimulatorChoices.maximumSignatureSize else {
                throw TMSSimulatorError(.invalidCatalogue, "\(what): signature of \(signature.count) bytes")
            }
            items.append(
                Item(
                    type: entry.type, label: entry.label ?? "", version: entry.version,
                    minimumVersion: entry.min_version, ciphered: false, imagePath: imageURL.path,
                    signature: Array(signature), answersZip: entry.answer == "zip"))
        }
        return Self(items: items)
    }

    /// "a.b.c.d": four decimal integers (§10.4 compares them element-wise).
    static func isVersion(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 9 && $0.allSatisfy(\.isASCIIDigit) }
    }

    /// The §10.4 config answer.
    func configJSON() -> [UInt8] {
        struct Answer: Encodable {
            struct Config: Encodable {
                let type: Int
                let ciphered: Bool
                let label: String
                let min_version: String
                let current_version: String
            }
            struct Payload: Encodable { let config: [Config] }
            let status: String
            let data: Payload
        }
        let answer = Answer(
            status: "ok",
            data: .init(
                config: items.map {
                    .init(
                        type: $0.type, ciphered: $0.ciphered, label: $0.label, min_version: $0.minimumVersion,
                        current_version: $0.version)
                }))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? Array(encoder.encode(answer))) ?? []
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
