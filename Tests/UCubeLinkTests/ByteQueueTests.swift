import Synchronization
import Testing
import UCubeSupport

/// The queue every transport delivers its bytes through (and the in-process link's bytes to the simulator):
/// `AsyncThrowingStream`'s semantics with unbounded buffering, which the client and the simulator rely on.
@Suite struct ByteQueueTests {
    @Test func chunksArriveInOrderAndFinishDrainsFirst() async {
        let queue = ByteQueue()
        for i in 0..<5 { #expect(queue.send([UInt8(i)])) }
        queue.finish()
        #expect(!queue.send([99]), "a finished queue refuses chunks")
        var read: [[UInt8]] = []
        for await chunk in queue { read.append(chunk) }
        #expect(read == [[0], [1], [2], [3], [4]])
        #expect(await queue.next() == nil, "the end is read again, not a chunk")
    }

    /// A link that drops says why, once its last bytes are read: the first reason given, as a stream throws its first.
    @Test func theFirstFailureIsKeptAfterTheChunks() async {
        struct Dropped: Error, Equatable { let reason: String }
        let queue = ByteQueue()
        #expect(queue.failure == nil)
        queue.send([0x02])
        queue.finish(throwing: Dropped(reason: "first"))
        queue.finish(throwing: Dropped(reason: "second"))
        #expect(await queue.next() == [0x02])
        #expect(await queue.next() == nil)
        #expect(queue.failure as? Dropped == Dropped(reason: "first"))
    }

    @Test func aWaitingReaderIsHandedTheNextChunk() async {
        let queue = ByteQueue()
        let reader = Task { await queue.next() }
        // Whether the reader waits already or not, it gets the chunk, once.
        try? await Task.sleep(for: .milliseconds(20))
        #expect(queue.send([1, 2, 3]))
        #expect(await reader.value == [1, 2, 3])
        queue.finish()
        #expect(await queue.next() == nil)
    }

    @Test func finishWakesAWaitingReader() async {
        let queue = ByteQueue()
        let reader = Task { await queue.next() }
        try? await Task.sleep(for: .milliseconds(20))
        queue.finish()
        #expect(await reader.value == nil)
    }

    @Test func cancellingTheReaderEndsTheQueue() async {
        let queue = ByteQueue()
        let reader = Task { () -> [[UInt8]] in
            var read: [[UInt8]] = []
            for await chunk in queue { read.append(chunk) }
            return read
        }
        #expect(queue.send([1]))
        try? await Task.sleep(for: .milliseconds(20))
        reader.cancel()
        let read = await reader.value
        #expect(read == [[1]] || read.isEmpty)
        #expect(!queue.send([2]), "once the reader is cancelled, as AsyncStream: the sender learns the link is gone")
    }

    @Test func manySendersLoseNothing() async {
        let queue = ByteQueue()
        let senders = 8
        let each = 500
        let reader = Task { () -> Int in
            var count = 0
            var sum = 0
            for await chunk in queue {
                count += 1
                sum += Int(chunk[0]) << 8 | Int(chunk[1])
                if count == senders * each { break }
            }
            return sum
        }
        await withTaskGroup(of: Void.self) { group in
            for s in 0..<senders {
                group.addTask {
                    for i in 0..<each {
                        let n = s * each + i
                        queue.send([UInt8(n >> 8), UInt8(n & 0xFF)])
                    }
                }
            }
        }
        let n = senders * each
        #expect(await reader.value == n * (n - 1) / 2)
    }

    /// Backpressure: a producer that asks is paused once `highWater` bytes wait, and let go on only when the reader has
    /// taken the queue down to half of that, or the queue ended. Counted in bytes, whatever the speed of either side.
    @Test func aProducerPausesAtTheHighWaterAndResumesAtHalf() async {
        let queue = ByteQueue(highWater: 100)
        let resumed = Mutex(0)
        #expect(!queue.pauseIfFull { resumed.withLock { $0 += 1 } }, "an empty queue has room")
        for _ in 0..<10 { queue.send([UInt8](repeating: 1, count: 10)) }
        #expect(queue.bufferedBytes == 100)
        #expect(queue.pauseIfFull { resumed.withLock { $0 += 1 } }, "100 bytes of 100: the producer pauses")
        for _ in 0..<4 { _ = await queue.next() }
        #expect(queue.bufferedBytes == 60)
        #expect(resumed.withLock { $0 } == 0, "60 bytes still wait: above half of the high water")
        _ = await queue.next()
        #expect(resumed.withLock { $0 } == 1, "50 bytes: the producer goes on, once")
        _ = await queue.next()
        #expect(resumed.withLock { $0 } == 1)

        for _ in 0..<6 { queue.send([UInt8](repeating: 1, count: 10)) }
        #expect(queue.pauseIfFull { resumed.withLock { $0 += 1 } })
        queue.finish()
        #expect(resumed.withLock { $0 } == 2, "a queue that ends lets its producer go, whoever reads")
        #expect(!queue.pauseIfFull { resumed.withLock { $0 += 1 } }, "an ended queue never pauses anyone")
    }

    @Test func waitForRoomReturnsOnceTheReaderHasTakenHalf() async {
        let queue = ByteQueue(highWater: 4)
        await queue.waitForRoom()  // empty: at once
        queue.send([1, 2, 3, 4])
        let producer = Task { await queue.waitForRoom() }
        #expect(await queue.next() == [1, 2, 3, 4])
        await producer.value  // ends only because the chunk was taken
        #expect(queue.bufferedBytes == 0)
    }
}
