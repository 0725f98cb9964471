import Synchronization
import Testing
import UCubeSupport

/// The queue behind the in-process links (`InMemoryTransport`, the simulator's outbox): `AsyncStream`'s semantics with
/// unbounded buffering, which the client and the simulator rely on.
@Suite struct AsyncQueueTests {
    @Test func valuesArriveInOrderAndFinishDrainsFirst() async {
        let queue = AsyncQueue<Int>()
        for i in 0..<5 { #expect(queue.send(i)) }
        queue.finish()
        #expect(!queue.send(99), "a finished queue refuses values")
        var read: [Int] = []
        for await value in queue { read.append(value) }
        #expect(read == [0, 1, 2, 3, 4])
        #expect(await queue.next() == nil, "the end is read again, not a value")
    }

    @Test func aWaitingReaderIsHandedTheNextValue() async {
        let queue = AsyncQueue<[UInt8]>()
        let reader = Task { await queue.next() }
        // Whether the reader waits already or not, it gets the value, once.
        try? await Task.sleep(for: .milliseconds(20))
        #expect(queue.send([1, 2, 3]))
        #expect(await reader.value == [1, 2, 3])
        queue.finish()
        #expect(await queue.next() == nil)
    }

    @Test func finishWakesAWaitingReader() async {
        let queue = AsyncQueue<Int>()
        let reader = Task { await queue.next() }
        try? await Task.sleep(for: .milliseconds(20))
        queue.finish()
        #expect(await reader.value == nil)
    }

    @Test func cancellingTheReaderEndsTheQueue() async {
        let queue = AsyncQueue<Int>()
        let reader = Task { () -> [Int] in
            var read: [Int] = []
            for await value in queue { read.append(value) }
            return read
        }
        #expect(queue.send(1))
        try? await Task.sleep(for: .milliseconds(20))
        reader.cancel()
        let read = await reader.value
        #expect(read == [1] || read.isEmpty)
        #expect(!queue.send(2), "once the reader is cancelled, as AsyncStream: the sender learns the link is gone")
    }

    @Test func manySendersLoseNothing() async {
        let queue = AsyncQueue<Int>()
        let senders = 8
        let each = 500
        let reader = Task { () -> Int in
            var count = 0
            var sum = 0
            for await value in queue {
                count += 1
                sum += value
                if count == senders * each { break }
            }
            return sum
        }
        await withTaskGroup(of: Void.self) { group in
            for s in 0..<senders {
                group.addTask { for i in 0..<each { queue.send(s * each + i) } }
            }
        }
        let n = senders * each
        #expect(await reader.value == n * (n - 1) / 2)
    }
}
