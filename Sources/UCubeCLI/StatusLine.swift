import Foundation
import Synchronization
import UCubeLog

/// The one line on a terminal's stderr that is redrawn in place: the update progress bar, the payment's "insert, tap
/// or swipe a card (27 s left)". Any other message on stderr first ends that line, so a Ctrl-C notice or an error
/// never lands on top of it.
enum StatusLine {
    /// Whether a partial (not newline-terminated) status line is on stderr now.
    private static let partial = Mutex(false)

    /// Redraws the status line with `text` (no newline): the cursor stays at its end.
    static func draw(_ text: String) {
        partial.withLock { shown in
            StandardStream.write(Array(("\r\u{1B}[2K" + text).utf8), to: STDERR_FILENO)
            shown = true
        }
    }

    /// Keeps the status line as it is and moves below it (a finished bar, or before another message).
    static func end() {
        partial.withLock { shown in
            if shown { StandardStream.write(Array("\n".utf8), to: STDERR_FILENO) }
            shown = false
        }
    }

    /// Erases the status line (a transient prompt that no longer applies).
    static func clear() {
        partial.withLock { shown in
            if shown { StandardStream.write(Array("\r\u{1B}[2K".utf8), to: STDERR_FILENO) }
            shown = false
        }
    }
}
