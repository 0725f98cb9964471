import Foundation

/// Whether stdin is a terminal a person can answer prompts on.
enum Terminal {
    /// A person (or, in `ucube shell`, the script's next lines) can answer prompts.
    static var isInteractive: Bool { ShellSession.current != nil || isatty(0) == 1 }

    /// Reads one line: at the shell's prompt inside `ucube shell` (`nil` on Ctrl-C or the end of the input), else
    /// from stdin on a thread of its own (never on the cooperative pool).
    static func readLine(prompt: String) async -> String? {
        if let session = ShellSession.current {
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
