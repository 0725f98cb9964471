import Foundation

/// Reading a person's answer to a prompt.
enum Terminal {
    /// Reads one line from `source`: at the shell's prompt inside `ucube shell` (`nil` on Ctrl-C or the end of the
    /// input), else from stdin on a thread of its own (never on the cooperative pool).
    static func readLine(prompt: String, from source: PromptSource) async -> String? {
        if case .shell(let session) = source {
            guard case .line(let line) = await session.readLine(prompt: prompt) else { return nil }
            return line
        }
        return await withCheckedContinuation { continuation in
            Thread {
                RawOutput.stderr(prompt)
                // A terminal's line discipline bounds a typed line; stdin may still be something else.
                continuation.resume(returning: try? BoundedFile.readLine(limit: PlainLineSource.maximumLineLength))
            }.start()
        }
    }
}
