import Foundation
import UCubeBluetooth
import UCubeLink
import UCubePayment
import UCubeProtocol
import UCubeTMS

/// `ucube diagnose`: the journal and disk checks.
extension Diagnosis {

    static func checkJournal(into report: inout DiagnoseReport) {
        let entries: [JournalEntry]
        do {
            entries = RunningPayments.marked(try PaymentJournal.history(Environment.journalPath))
        } catch {
            report.add(
                .journal, "unresolved", .warning, DiagnoseCode.journalUnreadable.name,
                "the journal cannot be read: \(error.reason)",
                hint: "check \(Environment.journalPath) and its permissions")
            return
        }
        let running = entries.compactMap { e in e.runningPID.map { "\(e.requestID) (pid \($0))" } }
        if !running.isEmpty {
            report.ok(
                .journal, "running",
                "\(running.count) payment\(running.count == 1 ? "" : "s") running now: \(running.joined(separator: ", "))",
                details: [
                    "running": .array(
                        entries.compactMap { e in
                            e.runningPID.map { pid in
                                .object(["requestID": .string(e.requestID), "pid": .int(Int(pid))])
                            }
                        })
                ])
        }
        let unresolved = entries.filter(\.isUnresolved)
        guard !unresolved.isEmpty else {
            report.ok(
                .journal, "unresolved",
                "\(entries.count) payment\(entries.count == 1 ? "" : "s") journalled, none unresolved",
                details: ["payments": .int(entries.count)])
            return
        }
        let listed: [DiagnoseValue] = unresolved.map { e in
            var fields: [String: DiagnoseValue] = ["requestID": .string(e.requestID)]
            if let t = e.startedAt { fields["startedAt"] = .string(t) }
            if let a = e.amount { fields["amount"] = .int(Int(clamping: a)) }
            if let c = e.currency { fields["currency"] = .string(c) }
            if let d = e.device { fields["device"] = .string(d) }
            if let c = e.lastCommand { fields["lastCommand"] = .string(c) }
            return .object(fields)
        }
        let names = unresolved.map { e in
            "\(e.requestID)\(e.startedAt.map { " (started \($0))" } ?? "")"
        }
        report.add(
            .journal, "unresolved", .warning, DiagnoseCode.unresolvedPayments.name,
            "\(unresolved.count) payment\(unresolved.count == 1 ? "" : "s") never recorded an outcome (the process ended): \(names.joined(separator: ", "))",
            hint:
                "check each with the acquirer before taking it again, then record it: `ucube history --unresolved` lists them, `ucube history resolve ID --status …` records the outcome",
            details: ["payments": .array(listed)])
    }

    static func checkDisk(into report: inout DiagnoseReport) {
        let state = Environment.stateDirectory
        if let problem = Environment.stateDirectoryProblem(state) {
            report.add(
                .disk, "state-directory", .blocking, DiagnoseCode.stateDirectoryUnusable.name,
                "the state directory \(state) cannot be used: \(problem)",
                hint:
                    "set XDG_STATE_HOME to a writable directory or fix its permissions: a payment journals its start there before it begins",
                details: ["path": .string(state)])
        } else {
            report.ok(.disk, "state-directory", "\(state) is writable", details: ["path": .string(state)])
            var fs = statvfs()
            if statvfs(state, &fs) == 0 {
                let free = UInt64(fs.f_bavail) * UInt64(fs.f_frsize)
                let details: [String: DiagnoseValue] = ["freeBytes": .int(Int(clamping: free))]
                if free < DiagnoseChoices.lowDiskBytes {
                    report.add(
                        .disk, "free-space", .warning, DiagnoseCode.diskSpaceLow.name,
                        "\(free / 1000) kB free for the state directory", hint: "free some space on that file system",
                        details: details)
                } else {
                    report.ok(.disk, "free-space", "\(free / 1_000_000) MB free", details: details)
                }
            }
        }
        let runtime = Environment.runtimeDirectory
        if let problem = Environment.stateDirectoryProblem(runtime) {
            report.add(
                .disk, "runtime-directory", .warning, DiagnoseCode.runtimeDirectoryUnusable.name,
                "the runtime directory \(runtime) cannot be used: \(problem); link sessions and the device lock are not kept",
                hint: "set XDG_RUNTIME_DIR (or XDG_STATE_HOME) to a writable directory",
                details: ["path": .string(runtime)])
        } else {
            report.ok(.disk, "runtime-directory", "\(runtime) is writable", details: ["path": .string(runtime)])
        }
    }
}
