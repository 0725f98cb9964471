import Crypto
import Foundation

/// `--shard I/N` and `--shard-host NAME` (docs/fleet.md "Shards"): which of a devices file's terminals this process
/// drives, when N CI jobs split one fleet. Pure: the same file (in any line order) and the same I/N give the same part,
/// on every host.
package struct FleetShard: Equatable, Sendable, CustomStringConvertible {
    /// 1…count.
    package let index: Int
    package let count: Int
    /// `--shard-host`: the terminals pinned to this runner (`DEVICE @NAME` in the devices file) come here too.
    package let host: String?

    package init(index: Int, count: Int, host: String?) {
        self.index = index
        self.count = count
        self.host = host
    }

    /// `I/N` with 1 ≤ I ≤ N ≤ `FleetChoices.maximumDevices`, or nil.
    package static func parse(_ text: String) -> (index: Int, count: Int)? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let index = Int(parts[0]), let count = Int(parts[1]),
            (1...FleetChoices.maximumDevices).contains(count), (1...count).contains(index)
        else { return nil }
        return (index, count)
    }

    /// A runner's name, as `--shard-host` and the `@NAME` of a devices file take it: letters, digits, `.`, `_`, `-`.
    package static func isValidHost(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0))
            }
    }

    /// How reports name it: `2/4`, or `2/4@bench-a`.
    package var description: String { "\(index)/\(count)" + (host.map { "@\($0)" } ?? "") }

    /// This shard's terminals, in the given order: those pinned to `host`, and the `index`-th part of the unpinned
    /// ones. The unpinned are sorted by a hash of their address (then the address), and dealt round-robin: shard I
    /// gets positions I-1, I-1+N, I-1+2N…, so the parts differ in size by at most one terminal, and the order of the
    /// file does not matter.
    package func select(_ devices: [FleetDevice]) -> [FleetDevice] {
        let unpinned = devices.filter { $0.host == nil }.sorted { a, b in
            let (ha, hb) = (Self.hash(a.key), Self.hash(b.key))
            return ha != hb ? ha < hb : a.key.utf8.lexicographicallyPrecedes(b.key.utf8)
        }
        let mine = Set(unpinned.enumerated().filter { $0.offset % count == index - 1 }.map(\.element.key))
        return devices.filter { device in
            if let pinned = device.host { return pinned == host }
            return mine.contains(device.key)
        }
    }

    /// FNV-1a, 64 bits: the same on every host and in every release (not Swift's seeded `Hasher`).
    package static func hash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}

/// One line of a devices file: the terminal as written, its canonical address (what makes two entries the same
/// terminal) and the runner it is pinned to (`DEVICE @NAME`), if any.
package struct FleetDevice: Equatable, Sendable {
    package let name: String
    package let key: String
    package var host: String? = nil

    package init(name: String, key: String, host: String? = nil) {
        self.name = name
        self.key = key
        self.host = host
    }
}

/// What a shard read its terminals from, as its JSON summary carries it for `ucube fleet-merge` (docs/fleet.md
/// "Shards"): a fingerprint of the whole list (every terminal and its pin, in any line order), so that shards that read
/// different devices files are refused, and the runners the list pins terminals to, so that a pin to a runner no
/// shard ran as is found.
package struct FleetShardInput: Equatable, Sendable {
    /// SHA-256 of the sorted `ADDRESS\tRUNNER` lines (RUNNER empty for an unpinned terminal), 64 hex digits.
    package let fingerprint: String
    /// How many terminals are pinned to each runner.
    package let pins: [String: Int]

    package init(fingerprint: String, pins: [String: Int]) {
        self.fingerprint = fingerprint
        self.pins = pins
    }

    /// The input of a run over `devices` (the whole list, before the shard's selection).
    package init(_ devices: [FleetDevice]) {
        let lines = devices.map { "\($0.key)\t\($0.host ?? "")" }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var hash = SHA256()
        for line in lines { hash.update(data: Array(line.utf8) + [0x0A]) }
        fingerprint = hash.finalize().map { String(format: "%02x", $0) }.joined()
        var pins: [String: Int] = [:]
        for device in devices { if let host = device.host { pins[host, default: 0] += 1 } }
        self.pins = pins
    }
}
