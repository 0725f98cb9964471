/// Text from outside the process (a devices file, a report, a Bluetooth name, an environment variable) made safe to
/// show: every character that a terminal acts on instead of showing, or that reorders what follows, is written as an
/// escape (`\x1B`, `\u{202E}`), so a name can neither move the cursor, recolour or clear the screen, nor hide itself,
/// in a terminal, a table or a report (issue 39). Everything else is kept as it is.
package enum VisibleText {
    /// `text` with C0 and C1 controls, DEL, and the bidirectional overrides and isolates escaped; a newline too,
    /// unless `keepingNewlines` (for multi-line text that ucube writes itself around such names).
    package static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingNewlines: keepingNewlines) }) else {
            return text
        }
        var out = ""
        for scalar in text.unicodeScalars {
            if needsEscape(scalar, keepingNewlines: keepingNewlines) {
                out += escape(scalar)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, keepingNewlines: Bool) -> Bool {
        switch scalar.value {
        case 0x0A: !keepingNewlines
        case 0x00..<0x20, 0x7F..<0xA0: true
        // Bidirectional embeddings and overrides (U+202A–U+202E) and isolates (U+2066–U+2069).
        case 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        if scalar.value <= 0xFF { return "\\x" + (digits.count < 2 ? "0" : "") + digits }
        return "\\u{" + digits + "}"
    }
}
