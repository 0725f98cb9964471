import Foundation

extension RootHelp {
    /// The width ArgumentParser would wrap help at: `$COLUMNS` when it is a number, else the width of the terminal on
    /// standard output, else 80 (its `Platform.terminalWidth`).
    static func currentColumns() -> Int {
        if let text = getenv("COLUMNS"), let columns = Int(String(cString: text)) { return columns }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
