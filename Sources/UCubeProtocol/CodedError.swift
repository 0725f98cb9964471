/// An error with a stable `code` and a `reason` for people (after swift-asn1's `ASN1Error`): equality and hashing
/// use the code only, so tests assert on codes and exit codes key on them while messages can improve.
///
/// `reason` is one sentence in our words; `hint` (optional) says what to do about it; `detail` (optional) keeps the
/// library's own text (NIO, BoringSSL, Foundation) for `--log-level debug` and the log, never for the sentence.
package protocol CodedError: Error, Hashable, Sendable, CustomStringConvertible {
    associatedtype Code: Hashable & Sendable
    var code: Code { get }
    var reason: String { get }
    var hint: String? { get }
    var detail: String? { get }
}

extension CodedError {
    package var description: String { reason }
    package var hint: String? { nil }
    package var detail: String? { nil }
    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// The stable, kebab-case name of an error code (`connectFailed` → `connect-failed`): the name `--json` prints
/// and scripts match, derived from the code enums so there is no second list to drift.
package func kebabCaseCodeName(_ raw: String) -> String {
    let characters = Array(raw)
    var out = ""
    for (i, character) in characters.enumerated() {
        if character.isUppercase, i > 0 {
            let previous = characters[i - 1]
            let next = i + 1 < characters.count ? characters[i + 1] : nil
            // A word starts at a capital after a lower-case letter or digit, or at the last capital of an acronym
            // followed by lower case ("insecureURL" → insecure-url, "tlsCertificate" → tls-certificate).
            if !previous.isUppercase || (next?.isLowercase ?? false) { out.append("-") }
        }
        out += character.lowercased()
    }
    return out
}
