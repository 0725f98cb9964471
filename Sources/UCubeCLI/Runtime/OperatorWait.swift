import UCubeRuntime

/// Waits for the operator to press Enter before a case (on a real terminal, attended): at most the timeout, and no
/// longer than a stop (Ctrl-C, SIGTERM, SIGHUP, `ucube cancel`) takes to arrive.
enum OperatorWait {
    static func enter(timeout: Duration, from source: PromptSource, stop: StopRequest) async -> OperatorAnswer {
        await withTaskGroup(of: OperatorAnswer.self) { group in
            group.addTask {
                await Terminal.readLine(prompt: "press Enter when ready: ", from: source) != nil ? .ready : .ended
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .timedOut
            }
            group.addTask {
                await stop.wait()
                return .stopped
            }
            // The first to end decides; the others are cancelled (the read's thread is woken and ends).
            let first = await group.next() ?? .ended
            group.cancelAll()
            // A stop that ended the read (Ctrl-C at the shell's prompt) is a stop, not the end of the input.
            return first == .ended && stop.isRequested ? .stopped : first
        }
    }
}
