import Foundation

/// Splits a shell line into words as a POSIX shell would for plain words: whitespace separates, 'single quotes' keep
/// everything, "double quotes" keep everything but `\"`, `\\`, `\$` and `` \` ``, a backslash outside quotes escapes
/// the next character, and `#` at the start of a word begins a comment.
package enum ShellWords {
    package struct UnterminatedQuote: Error, CustomStringConvertible {
        package let quote: Character
        package var description: String { "unterminated \(quote == "'" ? "single" : "double") quote" }
    }

    /// The words of `line`; throws on an unterminated quote.
    package static func split(_ line: String) throws -> [String] {
        let result = scan(line)
        if let quote = result.openQuote { throw UnterminatedQuote(quote: quote) }
        return result.words
    }

    /// `word` as one shell word: unchanged when it needs no quoting, else in single quotes (`'` as `'\''`).
    /// `split(quote(w)) == [w]`, in this shell and in sh/bash, so a printed name or path can be pasted.
    package static func quote(_ word: String) -> String {
        let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")
        if !word.isEmpty && word.allSatisfy(plain.contains) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// For completion: the words so far, an open quote closing at the end of the line.
    package static func splitLeniently(_ line: String) -> [String] { scan(line).words }

    private static func scan(_ line: String) -> (words: [String], openQuote: Character?) {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var iterator = Array(line)[...]
        while let c = iterator.popFirst() {
            switch quote {
            case "'":
                if c == "'" { quote = nil } else { current.append(c) }
            case "\"":
                if c == "\"" {
                    quote = nil
                } else if c == "\\", let next = iterator.first, "\"\\$`".contains(next) {
                    current.append(iterator.removeFirst())
                } else {
                    current.append(c)
                }
            default:
                if c == " " || c == "\t" || c == "\n" || c == "\r" {
                    if inWord { words.append(current) }
                    current = ""
                    inWord = false
                } else if c == "#" && !inWord {
                    return (words, nil)
                } else if c == "'" || c == "\"" {
                    quote = c
                    inWord = true
                } else if c == "\\" {
                    inWord = true
                    if let next = iterator.popFirst() { current.append(next) }
                } else {
                    current.append(c)
                    inWord = true
                }
            }
        }
        if inWord { words.append(current) }
        return (words, quote)
    }
}
