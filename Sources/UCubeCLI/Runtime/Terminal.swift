import Foundation
import Synchronization
import UCubeRuntime

/// Reading a person's answer to a prompt.
enum Terminal {
    /// Reads one line from `source`: at the shell's prompt inside `ucube shell` (`nil` on Ctrl-C or the end of the
    /// input), else from stdin on a thread of its own (never on the cooperative pool). Cancelling the task ends the
    /// wait at once with `nil`: the stdin thread is woken through a pipe of its own, the shell's readline as Ctrl-C
    /// wakes it.
    static func readLine(prompt: String, from source: PromptSource) async -> String? {
        if case .shell(let session) = source {
            let read = await withTaskCancellationHandler {
                await session.readLine(prompt: prompt)
            } onCancel: {
                // readline's getc looks at this flag every 100 ms: the line is cleared and the read ends.
                shellInterrupt.store(true, ordering: .sequentiallyConsistent)
            }
            guard case .line(let line) = read else { return nil }
            return line
        }
        guard let read = StandardInputLine() else { return nil }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                Thread {
                    RawOutput.stderr(prompt)
                    continuation.resume(returning: read.run(limit: PlainLineSource.maximumLineLength))
                }.start()
            }
        } onCancel: {
            read.cancel()
        }
    }

    /// Reads the operator's answer to a payment's prompt (`--authorize prompt`, `--select prompt`). On stdin (a
    /// terminal), Ctrl-C, SIGTERM, SIGHUP and `ucube cancel` end it at once with `nil` (the operator's "cancel"), even
    /// where the payment's cancel rule no longer stops the payment: a prompt is a wait on a person, and the person's
    /// answer is to stop. The signal is the prompt's alone while it waits (`Interrupts.onInterrupt(consuming:)`), so
    /// no refusal of the payment's cancel is printed beside it. Inside `ucube shell`, Ctrl-C at the prompt does the
    /// same through the shell's own handler (an `Interrupts` registration would replace it), and `ucube cancel` keeps
    /// the payment's cancel rule: a script's next line is the answer.
    static func operatorAnswer(prompt: String, from source: PromptSource) async -> String? {
        guard case .standardInput = source else { return await readLine(prompt: prompt, from: source) }
        let stop = CancelSlot()
        let interrupts = Interrupts.onInterrupt(consuming: true) { stop.cancel() }
        defer { interrupts.cancel() }
        return await ControlSocket.routing({
            stop.cancel()
                ? CancelAnswer(.accepted, "answering the operator's prompt with cancel")
                : CancelAnswer(.already, "the operator's prompt is already answered with cancel")
        }) {
            let task = Task { await readLine(prompt: prompt, from: source) }
            stop.hold { task.cancel() }
            return await task.value
        }
    }
}

/// One line of standard input read with `poll(2)` on fd 0 and on a pipe of its own, so that `cancel()` ends the read
/// at once instead of leaving a thread blocked until Enter. Byte by byte with `read(2)`: a terminal in canonical mode
/// hands over a line at a time, so nothing past the line is taken from stdin.
private final class StandardInputLine: Sendable {
    /// The pipe's write end, -1 once the read has ended and closed it; the lock keeps `cancel` from writing to a
    /// descriptor the read has closed (and the system has reused).
    private let wakeWriteEnd: Mutex<Int32>
    private let wakeReadEnd: Int32

    init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        wakeReadEnd = ends[0]
        wakeWriteEnd = Mutex(ends[1])
    }

    func cancel() {
        wakeWriteEnd.withLock { fd in
            guard fd >= 0 else { return }
            var byte: UInt8 = 1
            _ = write(fd, &byte, 1)
        }
    }

    /// The line without its end (a CR before the LF dropped too), nil at the end of the input, on a cancel, or past
    /// `limit` bytes. Runs once.
    func run(limit nominal: Int) -> String? {
        defer {
            wakeWriteEnd.withLock { fd in
                close(fd)
                fd = -1
            }
            close(wakeReadEnd)
        }
        let limit = BoundedFile.effectiveLimit(nominal)
        var bytes: [UInt8] = []
        while true {
            var fds = [
                pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeReadEnd, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if fds[1].revents != 0 { return nil }
            guard fds[0].revents != 0 else { continue }
            var byte: UInt8 = 0
            let n = read(0, &byte, 1)
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if n <= 0 {
                guard !bytes.isEmpty else { return nil }
                break
            }
            if byte == 0x0A { break }
            guard bytes.count < limit else { return nil }
            bytes.append(byte)
        }
        if bytes.last == 0x0D { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
