import Foundation
import Synchronization
import UCubeLink
import UCubeProtocol
import UCubeSimulator
import UCubeSupport
import UCubeTMS
import UCubeTMSSimulator

/// The CLI's own error codes, for failures no library error names. With the exit codes' names (a failure with no
/// better code is named by its exit code: `usage`, `terminal-status`, …) and the library code enums (`LinkError.Code`
/// as is, `TMSError.Code` with a `tms-` prefix) they are every `code` the `--json` error object can carry;
/// `catalogue` lists them from those enums, so there is no second list to drift.
package enum CLIErrorCode: String, CaseIterable {
    /// The first word is not a command (`ucube pya 10`), or the word after `rpc` not one of its commands.
    case unknownCommand
    /// The state directory ($XDG_STATE_HOME/ucube) cannot be created or written, and the command keeps state there.
    case stateDirectoryUnusable
    /// An output file cannot be created: its directory is missing, or not writable.
    case cannotCreateOutput
    /// A write to stdout failed (a full disk or device, an I/O error).
    case stdoutWriteFailed
    /// stdout was closed before everything was written (`ucube … | head -1`).
    case stdoutClosed
    /// `simulate`: the address to listen on is taken.
    case addressInUse
    /// `simulate`: the address cannot be bound (not a local address, a privileged port).
    case cannotListen
    /// `test`, `simulate --suite`: the suite file is not valid JSON or not a valid suite (the message names the field).
    case badSuite
    /// A file or directory ucube writes is a symbolic link, another user's, or writable by other users: refused.
    case unsafePath
    /// `pay --request-id ID`: a payment with this id is running (in another process, whose pid is named).
    case requestIdRunning
    /// `pay --request-id ID`: a payment with this id was started and its outcome is unknown: it must be resolved
    /// (`history resolve`), not paid again.
    case requestIdUnresolved
    /// `sim`, `simulate --json`'s stdin: a steering request that is not valid (an unknown card, a bad fault).
    case badSteering
    /// `sim`: no running `ucube simulate` listens for steering at that address.
    case noSimulator

    package var name: String { kebabCaseCodeName(rawValue) }

    package var exit: ExitCodes.Entry {
        switch self {
        case .unknownCommand, .badSteering: ExitCodes.usage
        case .stateDirectoryUnusable, .cannotCreateOutput, .unsafePath: ExitCodes.cannotCreate
        case .stdoutWriteFailed, .stdoutClosed: ExitCodes.ioError
        case .addressInUse, .cannotListen, .noSimulator: ExitCodes.unavailable
        case .badSuite: ExitCodes.dataError
        case .requestIdRunning, .requestIdUnresolved: ExitCodes.busy
        }
    }

    package static func name(of code: LinkError.Code) -> String { kebabCaseCodeName(code.rawValue) }

    package static func name(of code: TMSError.Code) -> String { "tms-" + kebabCaseCodeName(code.rawValue) }

    /// Every code name with its exit code, ordered by exit code (the man page lists it).
    package static var catalogue: [(code: String, exit: ExitCodes.Entry)] {
        let generic = ExitCodes.all.filter { $0.code != 0 }.map { ($0.name, $0) }
        let link = LinkError.Code.allCases.map { (name(of: $0), ExitCodes.code(for: LinkError($0, ""))) }
        let tms = TMSError.Code.allCases.map { (name(of: $0), ExitCodes.code(for: TMSError($0, ""))) }
        let own = allCases.map { ($0.name, $0.exit) }
        var seen = Set<String>()
        return (generic + link + tms + own).filter { seen.insert($0.0).inserted }.map { (code: $0.0, exit: $0.1) }
            .sorted { ($0.exit.code, $0.code) < ($1.exit.code, $1.code) }
    }

    /// The catalogue as lines, one per exit code: `  5  link, connect-failed, connection-refused, …`.
    package static var catalogueLines: [String] {
        var lines: [String] = []
        var byExit: [(Int32, [String])] = []
        for entry in catalogue {
            if let last = byExit.last, last.0 == entry.exit.code {
                byExit[byExit.count - 1].1.append(entry.code)
            } else {
                byExit.append((entry.exit.code, [entry.code]))
            }
        }
        for (exit, codes) in byExit { lines.append("  \(exit)  \(codes.joined(separator: ", "))") }
        return lines
    }
}

extension CLIFailure {
    /// Any error that reaches `UCube.report`, as the CLI reports it. ArgumentParser's own errors are handled by
    /// `report` before this (they need the command line).
    package init(reporting error: any Error) {
        switch error {
        case let failure as CLIFailure:
            self = failure
        case let error as UsageError:
            self.init(ExitCodes.usage, error.message)
        case let error as LinkError:
            self.init(error)
        case let error as TMSError:
            self.init(error)
        case let error as SimulatorError:
            self.init(simulator: error)
        case let error as TMSSimulatorError:
            self.init(tmsSimulator: error)
        default:
            if let failure = CLIFailure(fileError: error) {
                self = failure
            } else {
                self.init(ExitCodes.failure, "\(error)", detail: String(reflecting: error))
            }
        }
    }

    package init(simulator error: SimulatorError) {
        switch error.code {
        case .addressInUse:
            self.init(
                ExitCodes.unavailable, error.reason, code: .addressInUse,
                hint:
                    "another program (perhaps another `ucube simulate`) listens there: stop it, or choose another port (port 0 picks a free one)"
            )
        case .bindFailed:
            self.init(
                ExitCodes.unavailable, error.reason, code: .cannotListen,
                hint: "listen on an address of this machine, on a port above 1023")
        case .stateUnreadable, .stateUnwritable:
            self.init(
                ExitCodes.cannotCreate, error.reason, code: .stateDirectoryUnusable,
                hint: "choose another --state-dir, or set UCUBE_SIM_HOME (or XDG_STATE_HOME) to a writable directory")
        case .imageUnwritable:
            self.init(ExitCodes.ioError, error.reason)
        case .badFault:
            self.init(
                ExitCodes.usage, error.reason,
                hint: "faults are drop@N, silent@N, reboot@N, load-drop@K and refuse-image, comma-separated")
        }
    }

    package init(tmsSimulator error: TMSSimulatorError) {
        switch error.code {
        case .addressInUse:
            self.init(
                ExitCodes.unavailable, error.reason, code: .addressInUse,
                hint:
                    "another program (perhaps another `ucube simulate --tms` or `--host`) listens there: stop it, or choose another port (port 0 picks a free one)"
            )
        case .bind:
            self.init(
                ExitCodes.unavailable, error.reason, code: .cannotListen,
                hint: "listen on an address of this machine, on a port above 1023")
        case .stateDirectory:
            self.init(
                ExitCodes.cannotCreate, error.reason, code: .stateDirectoryUnusable,
                hint: "set UCUBE_TMS_SIM_HOME (or XDG_STATE_HOME) to a writable directory")
        case .invalidCatalogue, .invalidArgument:
            self.init(ExitCodes.usage, error.reason)
        case .pki:
            self.init(ExitCodes.failure, error.reason)
        }
    }

    /// A Foundation file error (`CocoaError` with its POSIX cause) as a sentence naming the path: 73 when a file or
    /// directory could not be created, 74 when a read or write failed. Under the state directory, it says so and
    /// how to move it. Nil for any other error.
    package init?(fileError error: any Error) {
        let path: String?
        let posix: Int32?
        let writing: Bool
        if let cocoa = error as? CocoaError {
            path = cocoa.filePath ?? cocoa.url?.path
            posix =
                (cocoa.underlying as? POSIXError).map { $0.code.rawValue }
                ?? (cocoa.underlying as? NSError).flatMap {
                    $0.domain == NSPOSIXErrorDomain ? Int32($0.code) : nil
                }
            writing = cocoa.code.rawValue >= CocoaError.fileWriteUnknown.rawValue || cocoa.code == .fileNoSuchFile
        } else if let error = error as? POSIXError {
            path = nil
            posix = error.code.rawValue
            writing = true
        } else {
            return nil
        }
        let cause = posix.map { ErrorNumber.text($0).lowercased() } ?? "\(error)"
        let target = path.map { " \($0)" } ?? ""
        let full = posix.map { [ENOSPC, EDQUOT, EIO].contains($0) } ?? false
        if let path, Environment.isInStateDirectory(path) {
            self = .stateDirectoryUnusable(cause: cause, detail: "\(error)")
        } else if writing && !full {
            self.init(ExitCodes.cannotCreate, "cannot create\(target): \(cause)", detail: "\(error)")
        } else {
            self.init(ExitCodes.ioError, "cannot \(writing ? "write" : "read")\(target): \(cause)", detail: "\(error)")
        }
    }

    /// The state directory cannot be created or written (73), naming it and how to move it.
    /// A file or directory refused for the user's safety (`PrivateFile`): a planted link, another user's directory.
    package static func unsafePath(_ error: PrivateFileError) -> CLIFailure {
        CLIFailure(
            ExitCodes.cannotCreate, error.description, code: .unsafePath,
            hint:
                "ucube writes only into directories of yours that no one else can write, and follows no link to a file")
    }

    package static func stateDirectoryUnusable(cause: String, detail: String? = nil) -> CLIFailure {
        CLIFailure(
            ExitCodes.cannotCreate, "the state directory \(Environment.stateDirectory) cannot be used: \(cause)",
            code: .stateDirectoryUnusable,
            hint:
                "set XDG_STATE_HOME to a writable directory (ucube keeps its journal and logs in $XDG_STATE_HOME/ucube)",
            detail: detail)
    }

    /// A failed write to stdout (74): a full device says so; a closed pipe is the reader's choice (`| head`) and is
    /// reported only by the exit code.
    package static func stdout(errno code: Int32) -> CLIFailure {
        if code == EPIPE {
            return CLIFailure(
                ExitCodes.ioError, "stdout was closed before all the output was written", code: .stdoutClosed)
        }
        return CLIFailure(
            ExitCodes.ioError, "cannot write to stdout: \(ErrorNumber.text(code).lowercased())",
            code: .stdoutWriteFailed,
            hint: "redirect the output to a file system with free space")
    }
}

// MARK: - The state directory

extension Environment {
    /// Creates the state directory for a command that keeps state there (the journal, the logs it sends, downloads)
    /// and checks it is writable; otherwise throws 73 naming it.
    package static func requireStateDirectory() throws(CLIFailure) {
        let directory = stateDirectory
        do throws(PrivateFileError) {
            try ensureDirectory(directory)
        } catch {
            if error.isRefusal { throw CLIFailure.unsafePath(error) }
            throw CLIFailure.stateDirectoryUnusable(cause: posixCause(error), detail: "\(error)")
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw CLIFailure.stateDirectoryUnusable(cause: ErrorNumber.text(errno).lowercased())
        }
    }

    /// Whether the state directory can be used, creating it if needed; the reason when not.
    package static func stateDirectoryProblem(_ directory: String) -> String? {
        // The usual case, a directory that is there, ours and writable, costs one stat and one access check.
        do {
            try PrivateFile.checkDirectory(directory)
        } catch {
            guard !error.isRefusal else { return error.description }
            // Missing (or not reachable): made as any state directory is.
            do {
                try ensureDirectory(directory)
            } catch {
                return posixCause(error)
            }
        }
        return access(directory, W_OK | X_OK) == 0 ? nil : ErrorNumber.text(errno).lowercased()
    }

    /// Whether `path` is the state directory, inside it, or one of its parents.
    package static func isInStateDirectory(_ path: String) -> Bool {
        let state = (stateDirectory as NSString).standardizingPath
        let path = (path as NSString).standardizingPath
        return path == state || path.hasPrefix(state + "/") || state.hasPrefix(path + "/")
    }

    /// The POSIX cause of a Foundation file error in a few words ("not a directory"), else the error's text.
    package static func posixCause(_ error: any Error) -> String {
        if let error = error as? PrivateFileError, !error.isRefusal, case .system(let code) = error.problem {
            return ErrorNumber.text(code).lowercased()
        }
        if let cocoa = error as? CocoaError, let posix = cocoa.underlying as? POSIXError {
            return ErrorNumber.text(posix.code.rawValue).lowercased()
        }
        if let cocoa = error as? CocoaError, let ns = cocoa.underlying as? NSError, ns.domain == NSPOSIXErrorDomain {
            return ErrorNumber.text(Int32(ns.code)).lowercased()
        }
        return "\(error)"
    }

    private static let warned = Mutex(false)

    /// Says once per process that something the command could do without (the log, the simulator's saved state, the
    /// link session) is not kept because the state or runtime directory is unusable; later ones stay silent.
    package static func warnStateUnusable(_ text: String, variable: String = "XDG_STATE_HOME") {
        guard
            warned.withLock({ done in
                defer { done = true }
                return !done
            })
        else { return }
        StandardError.write("ucube: warning: \(text) (set \(variable) to a writable directory)")
    }
}
