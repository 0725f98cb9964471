import Foundation
import Synchronization
import UCubeProtocol
import UCubeSupport

/// One command over several terminals (docs/fleet.md): `info`, `diagnose`, `mdm-register`, `mdm-update`, `send-logs`, `test` and `shell --script` with a
/// repeated `--device` or `--devices FILE`. The terminals run in this process, up to `--parallel` at a time, each in
/// its own task with its output bound to a `DeviceOutput` that tags it with the device: with `--json`, every event of
/// the command becomes a JSON line with a `device` key, and each terminal ends with an `end` event; otherwise a line per
/// terminal as it ends and a summary table. Verdicts go to the run file as they come, and to `--junit` at the end.
/// Exit 0 only when every terminal succeeded; 18 (`fleet-failed`) otherwise, 11 after Ctrl-C.
package struct FleetRun: Sendable {
    package let command: String
    package let devices: [String]
    package let json: Bool
    package let parallel: Int
    package let maxFailures: Int?
    package let junit: String?
    package let runFile: FleetRunFile
    /// What decides the run's work (`FleetWork`): a run resumes only from a run file of the same work.
    package let work: String
    package let restart: Bool
    /// The command changes terminals (an update, a registration, a script), so a run resumes from its run file. A
    /// read-only one (`info`) asks every terminal every time: an earlier run's answers would be stale.
    package let resumes: Bool
    /// `--shard`: this process drives one part of the devices (`FleetShard`); its summary says which.
    package let shard: FleetShard?
    /// With `--shard`: the whole list's fingerprint and pins, in the summary for `fleet-merge`.
    package let shardInput: FleetShardInput?

    /// The fleet run the command line asks for, or nil when it names one terminal and no fleet option. `inputs`: the
    /// files besides the devices file that the command reads its work from (a suite, an image, a script), part of
    /// the run's work with the command line and the devices file (`FleetWork`).
    package init?(
        command: String, context: CommandContext, options: FleetOptionValues, resumes: Bool = true,
        inputs: [String] = [], arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) throws(CLIFailure) {
        guard context.givenDevices.count > 1 || options.asked else { return nil }
        if !resumes && (options.runFile != nil || options.restart) {
            throw CLIFailure(
                ExitCodes.usage,
                "\(command) asks every terminal every time: --run-file and --restart are for commands that change terminals"
            )
        }
        self.resumes = resumes
        if context.shell != nil {
            throw CLIFailure(
                ExitCodes.usage,
                "a fleet run (several terminals, --devices, --junit…) is for the command line, not inside `ucube shell`"
            )
        }
        if context.record != nil {
            throw CLIFailure(ExitCodes.usage, "--record records one terminal's session; a fleet run has several")
        }
        var given = context.givenDevices
        if given.isEmpty && options.devices == nil { given = [context.deviceAddress] }
        let all = try FleetDevices.list(given: given, file: options.devices)
        shard = options.fleetShard
        shardInput = shard == nil ? nil : FleetShardInput(all)
        devices = (shard?.select(all) ?? all).map(\.name)
        self.command = command
        json = context.json
        parallel = options.parallel ?? devices.count
        maxFailures = options.maxFailures
        junit = options.junit.map { ($0 as NSString).expandingTildeInPath }
        if let junit { try Environment.checkOutputDirectory(of: junit, option: "--junit") }
        runFile = FleetRunFile(
            path: options.runFile.map { ($0 as NSString).expandingTildeInPath }
                ?? FleetRunFile.defaultPath(command: command, arguments: arguments))
        restart = options.restart
        var files: [(role: String, path: String)] = inputs.map { (role: "input", path: $0) }
        if let list = options.devices { files.insert((role: "devices", path: list), at: 0) }
        let expanded = files.map { (role: $0.role, path: ($0.path as NSString).expandingTildeInPath) }
        work = resumes ? FleetWork.fingerprint(arguments: arguments, files: expanded) : ""
    }

    /// Runs `work` for each terminal not yet done, and reports to `reporter`. `work` runs the command for one terminal,
    /// with its output going to the run (`DeviceOutput`); it throws what the command would have.
    package func run(
        reporting reporter: any FleetRunReporting, _ work: @escaping @Sendable (String) async throws -> Void
    )
        async throws
    {
        let started = Date()
        let clock = ContinuousClock.now
        // Before any terminal: a file at the run file's path that ucube did not make is refused, and left alone.
        var earlier: [String: FleetVerdict] = [:]
        var note: String? = nil
        if resumes {
            (earlier, note) = try runFile.start(
                FleetRunFile.Header(command: command, work: self.work), restart: restart)
        }
        let done = devices.compactMap { earlier[$0] }.filter { $0.result == .ok }
        let todo = devices.filter { earlier[$0]?.result != .ok }
        if let note { reporter.note(note) }
        reporter.resuming(done: done, runFile: runFile.path)
        let stopping = StopFlag()
        let ledger = FleetLedger()
        let ran = await runStoppable(todo, work: work, reporter: reporter, stopping: stopping, ledger: ledger)
        let byDevice = Dictionary((done + ran).map { ($0.device, $0) }, uniquingKeysWith: { _, last in last })
        let verdicts = FleetVerdict.reportOrder(devices.compactMap { byDevice[$0] })
        let seconds = (ContinuousClock.now - clock).seconds
        reporter.summary(verdicts, seconds: seconds)
        if let junit {
            try Self.writeJUnit(junit, command: command, verdicts: verdicts, timestamp: started, seconds: seconds)
        }
        let failed = verdicts.filter { $0.result == .failed }.count
        let notStarted = verdicts.filter { $0.result == .notStarted }.count
        if failed == 0 && notStarted == 0 {
            if resumes { runFile.removeIfOurs() }
            return
        }
        let again =
            resumes
            ? "run the same command again to retry only the terminals not yet done (run file \(runFile.path); --restart runs them all)"
            : "run the same command again: it asks every terminal"

        if stopping.isSet {
            throw CLIFailure(
                ExitCodes.cancelled,
                "fleet run interrupted: \(failed) terminal\(failed == 1 ? "" : "s") failed, \(notStarted) not started",
                hint: resumes
                    ? "run the same command again to finish the terminals not yet done (run file \(runFile.path))"
                    : again)
        }
        throw CLIFailure(
            ExitCodes.fleetFailed,
            "\(failed) of \(verdicts.count) terminal\(verdicts.count == 1 ? "" : "s") failed\(notStarted > 0 ? ", \(notStarted) not started (--max-failures)" : "")",
            hint: again)
    }

    /// Writes the JUnit report of `verdicts` to `path` (a fleet run's `--junit`, `ucube fleet-merge --junit`).
    package static func writeJUnit(
        _ path: String, command: String, verdicts: [FleetVerdict], timestamp: Date, seconds: Double
    )
        throws(CLIFailure)
    {
        let xml = Masking.redactCardData(
            in: JUnitReport.xml(command: command, verdicts: verdicts, timestamp: timestamp, seconds: seconds))
        do {
            try Data(xml.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            // Written (renamed into place) under ucube's own umask 077: given the user's mode, as a report is.
            try FileManager.default.setAttributes([.posixPermissions: Int(Environment.outputMode)], ofItemAtPath: path)
        } catch {
            throw CLIFailure(
                ExitCodes.cannotCreate, "cannot write the JUnit report \(path): \(error.localizedDescription)",
                code: .cannotCreateOutput)
        }
    }

    /// The failure a run with failed or not-started terminals ends with (exit 18).
    package static func failedRun(failed: Int, notStarted: Int, of total: Int, hint: String) -> CLIFailure {
        CLIFailure(
            ExitCodes.fleetFailed,
            "\(failed) of \(total) terminal\(total == 1 ? "" : "s") failed\(notStarted > 0 ? ", \(notStarted) not started" : "")",
            hint: hint)
    }

    /// `runAll` under the run's signals: the first Ctrl-C, SIGTERM or SIGHUP starts no more terminals and stops the
    /// running ones (each as its command stops); a second abandons those still running, so that the summary is
    /// written at once: each gets a `failed` verdict that says it was abandoned, and the run's end does not wait for it.
    private func runStoppable(
        _ todo: [String], work: @escaping @Sendable (String) async throws -> Void, reporter: any FleetRunReporting,
        stopping: StopFlag, ledger: FleetLedger
    ) async -> [FleetVerdict] {
        let abandon = StopRequest()
        let signals = FleetSignals()
        let task = Task { [self] in
            await runAll(todo, work: work, reporter: reporter, stopping: stopping, ledger: ledger)
        }
        let interrupts = Interrupts.onInterrupt {
            switch signals.next() {
            case .stop:
                stopping.set()
                StandardError.write(
                    "ucube: interrupted: starting no more terminals, stopping the running ones (again to abandon them)")
                task.cancel()
            case .abandon:
                StandardError.write("ucube: interrupted again: abandoning the running terminals; the summary follows")
                abandon.request()
            case .ignore:
                break
            }
        }
        defer { interrupts.cancel() }
        // A race of unstructured tasks, not a task group: a group would wait for the run it abandons.
        let first = FirstOf<[FleetVerdict]?>()
        let finishing = Task { first.finish(await task.value) }
        let abandoning = Task {
            await abandon.wait()
            first.finish(nil)
        }
        let finished = await first.value
        finishing.cancel()
        abandoning.cancel()
        if let finished { return finished }
        // Abandoned: what ended stands; the terminals still running, and those never started, are said so now.
        let (ended, running) = ledger.close()
        var verdicts = ended
        for (device, since) in running {
            let verdict = FleetVerdict.failed(
                device,
                CLIFailure(
                    ExitCodes.cancelled,
                    "abandoned by a second interrupt while it ran: its command may not have finished (a payment it left shows in `ucube history --unresolved`)"
                ), seconds: (ContinuousClock.now - since).seconds)
            reporter.ended(verdict)
            verdicts.append(verdict)
        }
        let seen = Set(verdicts.map(\.device))
        for device in todo where !seen.contains(device) {
            let verdict = FleetVerdict.notStarted(device, because: "the run was interrupted")
            reporter.ended(verdict)
            verdicts.append(verdict)
        }
        return verdicts
    }

    /// Starts terminals up to `parallel` at a time until all have run, `--max-failures` is reached or the run is
    /// interrupted; the terminals never started get a `not-started` verdict.
    private func runAll(
        _ todo: [String], work: @escaping @Sendable (String) async throws -> Void, reporter: any FleetRunReporting,
        stopping: StopFlag, ledger: FleetLedger
    ) async -> [FleetVerdict] {
        var verdicts: [FleetVerdict] = []
        var next = todo.makeIterator()
        var failures = 0
        var stopReason: String? = nil
        await withTaskGroup(of: FleetVerdict.self) { group in
            func startNext() -> Bool {
                guard let device = next.next() else { return false }
                guard ledger.started(device) else { return false }
                reporter.started(device)
                group.addTask { await Self.runOne(device, work: work, reporter: reporter) }
                return true
            }
            var slots = parallel
            while slots > 0, startNext() { slots -= 1 }
            for await verdict in group {
                // An abandoned run has written its summary: a late verdict is not reported (nor the rest of the run).
                guard ledger.ended(verdict) else { return }
                verdicts.append(verdict)
                // Durable first, then announced: whoever sees a terminal's `end` (a script, a test, an operator who
                // then kills the run) can count on a re-run knowing it too.
                if resumes {
                    do {
                        try runFile.append(verdict)
                    } catch {
                        reporter.warn((error as? CLIFailure)?.message ?? "\(error)")
                    }
                }
                reporter.ended(verdict)
                if verdict.result == .failed { failures += 1 }
                if let maxFailures, failures >= maxFailures, stopReason == nil {
                    stopReason =
                        "\(failures) terminal\(failures == 1 ? "" : "s") failed (--max-failures \(maxFailures))"
                }
                if stopping.isSet || Task.isCancelled, stopReason == nil {
                    stopReason = "the run was interrupted"
                }
                if stopReason == nil { _ = startNext() }
            }
        }
        while let device = next.next() {
            let verdict = FleetVerdict.notStarted(device, because: stopReason ?? "the run ended first")
            guard ledger.ended(verdict) else { break }
            reporter.ended(verdict)
            verdicts.append(verdict)
        }
        return verdicts
    }

    /// One terminal: the command with its output captured, and what became of it.
    private static func runOne(
        _ device: String, work: @escaping @Sendable (String) async throws -> Void, reporter: any FleetRunReporting
    )
        async
        -> FleetVerdict
    {
        let capture = DeviceCapture(device: device, reporter: reporter)
        let clock = ContinuousClock.now
        var verdict: FleetVerdict
        do {
            // The terminal is a unit of work of its own: `ucube cancel --device D` reaches D's work only (the route
            // its payment sets, else this stop), while a signal reaches every terminal (`Interrupts`).
            let stop = CancelSlot()
            try await ControlSocket.inUnit(
                device,
                stop: {
                    stop.cancel()
                        ? CancelAnswer(.accepted, "stopping the fleet run's work on \(device)")
                        : CancelAnswer(.already, "the fleet run's work on \(device) is already being stopped")
                }
            ) {
                let task = Task { try await DeviceOutput.$current.withValue(capture.output) { try await work(device) } }
                stop.hold { task.cancel() }
                try await withTaskCancellationHandler {
                    try await task.value
                } onCancel: {
                    task.cancel()
                }
            }
            verdict = .ok(device, seconds: (ContinuousClock.now - clock).seconds)
        } catch {
            verdict = .failed(device, failure(error), seconds: (ContinuousClock.now - clock).seconds)
        }
        verdict.items = capture.items
        verdict.detail = capture.detail
        verdict.hint = verdict.hint ?? capture.hint
        verdict.at = ISO8601DateFormatter().string(from: Date())
        return verdict
    }

    /// What a command's error means for its terminal, as `UCube.report` would say it.
    package static func failure(_ error: any Error) -> CLIFailure {
        if error is CancellationError { return CLIFailure(ExitCodes.cancelled, "interrupted") }
        return CLIFailure(reporting: error)
    }

}

/// What each signal to a fleet run means, in order: the first stops it, the second abandons the terminals still
/// running, later ones change nothing.
package final class FleetSignals: Sendable {
    package enum Meaning: Equatable, Sendable { case stop, abandon, ignore }
    private let count = Mutex(0)

    package func next() -> Meaning {
        let n = count.withLock { count in
            count += 1
            return count
        }
        return Self.meaning(ofSignal: n)
    }

    /// The meaning of the `n`th signal (from 1).
    package static func meaning(ofSignal n: Int) -> Meaning { n == 1 ? .stop : n == 2 ? .abandon : .ignore }
}

/// The terminals of a fleet run as they start and end, until the run is abandoned (`close`): then the verdicts so far
/// and the terminals still running, and nothing more is taken.
package final class FleetLedger: Sendable {
    private struct State {
        var ended: [FleetVerdict] = []
        var running: [(device: String, since: ContinuousClock.Instant)] = []
        var closed = false
    }
    private let state = Mutex(State())

    /// A terminal starts; false once the run is abandoned.
    package func started(_ device: String) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.running.append((device, ContinuousClock.now))
            return true
        }
    }

    /// A terminal's verdict; false once the run is abandoned (the verdict is then not reported).
    package func ended(_ verdict: FleetVerdict) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.running.removeAll { $0.device == verdict.device }
            state.ended.append(verdict)
            return true
        }
    }

    /// Abandons the run: the verdicts so far and the terminals still running, with when each started.
    package func close() -> (ended: [FleetVerdict], running: [(device: String, since: ContinuousClock.Instant)]) {
        state.withLock { state in
            state.closed = true
            return (state.ended, state.running)
        }
    }
}

/// The first of several racers' values (`finish` from each; the later ones are dropped).
package final class FirstOf<Value: Sendable>: Sendable {
    private let state = Mutex<(value: Value?, waiting: CheckedContinuation<Value, Never>?)>((nil, nil))

    package func finish(_ value: Value) {
        let waiting = state.withLock { state -> CheckedContinuation<Value, Never>? in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(returning: value)
    }

    package var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Value? in
                    if let value = state.value { return value }
                    state.waiting = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

/// Set once, by Ctrl-C: the run starts no more terminals.
package final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)

    package init() {}

    package func set() { value.store(true, ordering: .sequentiallyConsistent) }
    package var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
}
