import ArgumentParser

/// Limits the prompts check before any link is opened (exit 64).
enum PromptLimits {
    /// DisplayMessage and DisplayListBox carry their timeout in one byte (spec §5.2).
    static let timeouts = 0...255

    static func check(timeout: Int, option: String = "--timeout") throws {
        guard timeouts.contains(timeout) else {
            throw ValidationError("\(option) is 0…255 seconds (one byte on the wire), got \(timeout)")
        }
    }

    /// Control characters (a newline, a tab) have no place on the terminal's one-line texts.
    static func checkPrintable(_ text: String, _ what: String) throws {
        guard !text.isEmpty else { throw ValidationError("\(what) is empty") }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            throw ValidationError(
                "\(what) has a control character (a newline, a tab…); the terminal shows one line of text")
        }
    }
}
