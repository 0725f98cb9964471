/// One line the shell read: a line, Ctrl-C (the line was cleared), the end of the input (Ctrl-D, end of script), or
/// a line too long to be a command (the input is refused from there on).
package enum LineRead: Sendable, Equatable {
    case line(String)
    case interrupted
    case end
    /// Longer than `PlainLineSource.maximumLineLength`: the rest of it was not read, so nothing after it can be.
    case tooLong
}
