/// A `Duration` as the numbers other APIs take: seconds as a `Double` (a JSON time, a rate, Dispatch), whole
/// milliseconds (D-Bus, poll(2)).
extension Duration {
    /// Seconds, with the fraction.
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// Whole milliseconds, rounded down, clamped to `Int32` (what D-Bus and poll(2) take).
    package var wholeMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return seconds < 0 ? .min : .max }
        return Int32(clamping: milliseconds.partialValue + attoseconds / 1_000_000_000_000_000)
    }
}
