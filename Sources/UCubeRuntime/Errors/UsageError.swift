/// A word from the command line, a shell line or a suite file that is not one the command takes: the runtime's usage
/// error (exit 64, `usage`). Its message says what is allowed. The command line reports it as it reports
/// ArgumentParser's own usage errors, with the usage line (`UCube.report`, `ValidationError(usage:)`); used in a
/// `transform:`, its message follows "The value 'x' is invalid for '--option <value>':".
package struct UsageError: Error, CustomStringConvertible, Sendable, Equatable {
    package let message: String

    package init(_ message: String) { self.message = message }

    package var description: String { message }
}
