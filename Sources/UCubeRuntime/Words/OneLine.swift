import Foundation

/// Text from a file that is shown as one line (a TAP line, a JUnit attribute, a line on stderr): it holds no control
/// character (C0, DEL and C1: newline, carriage return, escape sequences) and no Unicode line or paragraph separator.
package enum OneLine {
    package static func holds(_ text: String) -> Bool {
        !text.unicodeScalars.contains { scalar in
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator: true
            default: false
            }
        }
    }

    /// `text` with every character `holds` refuses replaced by a space (a message from elsewhere, made one line).
    package static func flattened(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { holds(String($0)) ? $0 : " " }))
    }
}
