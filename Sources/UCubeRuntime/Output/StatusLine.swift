import Foundation
import Synchronization
import UCubeLog

/// The one line on a terminal's stderr that is redrawn in place: the update progress bar, the payment's "insert, tap
/// or swipe a card (27 s left)". Any other message on stderr first ends that line, so a Ctrl-C notice or an error
/// never lands on top of it.
package enum StatusLine {
    /// Whether a partial (not newline-terminated) status line is on stderr now.
    private static let partial = Mutex(false)

    /// Redraws the status line with `text` (no newline): the cursor stays at its end. Cut to the terminal's width:
    /// a line that wrapped would leave a copy of itself on every redraw.
    package static func draw(_ text: String) {
        guard !Console.isQuiet else { return }
        let fitted = fit(text, columns: columns())
        partial.withLock { shown in
            Console.err("\r\u{1B}[2K" + fitted)
            shown = true
        }
    }

    /// `text` cut to `columns - 1` characters (the last column left free, so no terminal wraps), with "…" when cut.
    package static func fit(_ text: String, columns: Int?) -> String {
        guard let columns, columns > 1, text.count > columns - 1 else { return text }
        return String(text.prefix(max(0, columns - 2))) + "…"
    }

    /// The width of the terminal on stderr, nil when it does not say.
    private static func columns() -> Int? {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Keeps the status line as it is and moves below it (a finished bar, or before another message).
    package static func end() {
        partial.withLock { shown in
            if shown { Console.err("\n") }
            shown = false
        }
    }

    /// Erases the status line (a transient prompt that no longer applies).
    package static func clear() {
        partial.withLock { shown in
            if shown { Console.err("\r\u{1B}[2K") }
            shown = false
        }
    }
}
