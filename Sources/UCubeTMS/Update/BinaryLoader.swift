import UCubeLink
import UCubeProtocol
import UCubeSupport

/// Where a load stands, after InstallForLoad (0 blocks) and after each Load block the terminal accepted.
package struct LoadProgress: Sendable, Hashable {
    package let bytesSent: Int
    package let totalBytes: Int
    package let blocksSent: Int
    package let blockCount: Int

    package init(bytesSent: Int, totalBytes: Int, blocksSent: Int, blockCount: Int) {
        self.bytesSent = bytesSent
        self.totalBytes = totalBytes
        self.blocksSent = blocksSent
        self.blockCount = blockCount
    }

    /// 0…1.
    package var fraction: Double { totalBytes == 0 ? 1 : Double(bytesSent) / Double(totalBytes) }
    package var isComplete: Bool { blocksSent == blockCount }
}

/// Rate and ETA from progress samples (for a progress bar): the average since the first sample.
package struct TransferMeter: Sendable {
    private var start: Duration?
    private var startBytes = 0
    package private(set) var bytesPerSecond: Double = 0

    package init() {}

    /// Records `bytes` done at `time` (any monotonic clock's elapsed time).
    package mutating func record(bytes: Int, at time: Duration) {
        guard let start else {
            self.start = time
            startBytes = bytes
            return
        }
        let seconds = (time - start).seconds
        if seconds > 0 { bytesPerSecond = Double(bytes - startBytes) / seconds }
    }

    /// Time left for `remaining` bytes at the current rate; `nil` before a rate is known.
    package func eta(remaining: Int) -> Duration? {
        guard bytesPerSecond > 0 else { return nil }
        return .milliseconds(Int64((Double(remaining) / bytesPerSecond * 1000).rounded()))
    }

}

/// What a load did.
package struct LoadResult: Sendable, Hashable {
    package let totalBytes: Int
    package let blockCount: Int
}

/// Loads one binary onto the terminal (spec §5.2 0x5160/0x5161, §10.6): InstallForLoad with the signature (method
/// PLAIN, or DYNAMIC + the ciphered session key), then one Load per block, the next after status 0.
///
/// Blocks are read one at a time from the file, so memory stays flat whatever the binary's size. Task cancellation is
/// honoured between blocks (the loader stops; the terminal discards its staging and keeps its installed version). A
/// non-zero status becomes an `UpdateError` naming it; a link failure becomes `.link`. Either way nothing was
/// installed, and running the load again starts over from InstallForLoad.
package struct BinaryLoader: Sendable {
    package let client: RPCClient
    /// Deadline per command; `nil` uses the client's RPC timeout.
    package var commandTimeout: Duration?

    package init(client: RPCClient, commandTimeout: Duration? = nil) {
        self.client = client
        self.commandTimeout = commandTimeout
    }

    @discardableResult
    package func load(
        _ binary: some LoadableBinary,
        progress: @Sendable (LoadProgress) -> Void = { _ in }
    ) async throws(UpdateError) -> LoadResult {
        let blocks = try await binary.open()
        try checkCancellation()
        let install = InstallForLoad(
            signature: blocks.signature, method: blocks.sessionKey == nil ? .plain : .dynamic,
            sessionKey: blocks.sessionKey)
        try await send(install, step: "InstallForLoad of \(binary.name)")
        progress(
            LoadProgress(bytesSent: 0, totalBytes: blocks.totalBytes, blocksSent: 0, blockCount: blocks.blockCount))
        var cursor = blocks.makeCursor()
        var current = try await cursor.next()
        var sent = 0
        var index = 0
        while let block = current {
            try checkCancellation()
            index += 1
            // The next block is read from the file (on NIO's thread pool) while this one is on the link, so the
            // read and its two thread hand-offs are not between an answer and the next Load (issue 27). One block
            // ahead at most: memory stays flat. A failed read is thrown after this block's answer, as before.
            async let following = Self.read(after: cursor)
            try await send(
                Load(isLast: index == blocks.blockCount, block: block),
                step: "Load block \(index)/\(blocks.blockCount) of \(binary.name)")
            sent += block.count
            progress(
                LoadProgress(
                    bytesSent: sent, totalBytes: blocks.totalBytes, blocksSent: index, blockCount: blocks.blockCount))
            (current, cursor) = try await following.get()
        }
        return LoadResult(totalBytes: sent, blockCount: index)
    }

    /// The block at `cursor`, and the cursor after it.
    private static func read(after cursor: BlockCursor) async -> Result<([UInt8]?, BlockCursor), UpdateError> {
        var cursor = cursor
        do throws(UpdateError) {
            let block = try await cursor.next()
            return .success((block, cursor))
        } catch {
            return .failure(error)
        }
    }

    private func checkCancellation() throws(UpdateError) {
        if Task.isCancelled {
            throw UpdateError(.cancelled, "the update was cancelled; the terminal keeps its installed version")
        }
    }

    /// `step` names the command in an error only: built when one is thrown, not for each of thousands of blocks.
    private func send<C: RPCCommand>(_ command: C, step: @autoclosure () -> String) async throws(UpdateError) {
        let reply: Reply<C.Response>
        do {
            reply = try await client.send(command, timeout: commandTimeout)
        } catch {
            if Task.isCancelled {
                throw UpdateError(.cancelled, "the update was cancelled; the terminal keeps its installed version")
            }
            throw UpdateError.link(error, during: step())
        }
        guard reply.status.isSuccess else { throw UpdateError.refused(reply.status, by: step()) }
    }
}
