import ArgumentParser
import UCubeRuntime

extension ValidationError {
    /// The runtime's usage error as ArgumentParser's own: reported with the usage line, exit 64.
    init(usage error: UsageError) { self.init(error.message) }

    /// `body`, with the runtime's usage errors made ArgumentParser's. A command's `validate()` needs it around the
    /// runtime's word parsers: ArgumentParser reports only its own `ValidationError` from there as a usage error
    /// (any other error exits 1). `UCube.report` does the same for errors from `run()`.
    static func checking<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as UsageError {
            throw ValidationError(usage: error)
        }
    }
}
