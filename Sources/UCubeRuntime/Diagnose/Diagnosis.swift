import UCubeTMS

/// `ucube diagnose`'s checks, in order: the link and the terminal, the TMS, the journal, the disk. Each check adds its
/// findings to one `DiagnoseReport`, which the executable renders as text or JSON (and a fleet run as each terminal's
/// result). Every wait is bounded: the terminal by the context's RPC timeout, the TMS by `DiagnoseChoices.tmsTimeout`
/// unless the command line gave one, a BLE connection by `DiagnoseChoices.bluetoothTimeout`.
package enum Diagnosis {
    /// The TMS as the command line names it: how to resolve its settings (read when the TMS checks start, after the
    /// link's; an error says why there are none), and whether the command line gave a timeout of its own.
    package struct TMS: Sendable {
        package var settings: @Sendable () throws -> TMSSettings
        package var timeoutGiven: Bool

        package init(settings: @escaping @Sendable () throws -> TMSSettings, timeoutGiven: Bool) {
            self.settings = settings
            self.timeoutGiven = timeoutGiven
        }
    }

    /// Every check on `context`'s terminal and this machine.
    package static func run(context: CommandContext, tms: TMS) async -> DiagnoseReport {
        var report = DiagnoseReport(device: context.deviceAddress)
        let facts = await checkLinkAndTerminal(context, into: &report)
        await checkTMS(tms, facts: facts, into: &report)
        checkJournal(into: &report)
        checkDisk(into: &report)
        return report
    }
}
