import UCubeLink
import UCubeProtocol

/// The one table of exit codes. The README and the man page list these; scripts can rely on them.
package enum ExitCodes {
    package struct Entry {
        package let code: Int32
        package let name: String
        package let meaning: String
    }

    package static let ok = Entry(code: 0, name: "ok", meaning: "success")
    package static let failure = Entry(code: 1, name: "failure", meaning: "an unexpected internal error")
    package static let terminalStatus = Entry(
        code: 3, name: "terminal-status",
        meaning: "the terminal answered with a non-success status (printed with its meaning)")
    package static let timeout = Entry(
        code: 4, name: "timeout",
        meaning:
            "the terminal did not answer in time (--rpc-timeout); read-card: no card within --card-timeout; display --wait-key, choose: no key or choice within --timeout; serve: stopped with a payment still running after 5 minutes"
    )
    package static let link = Entry(
        code: 5, name: "link", meaning: "the link could not be opened or dropped (connect failed, disconnected)")
    package static let protocolError = Entry(
        code: 6, name: "protocol",
        meaning:
            "the terminal sent bytes that are not a valid answer (wrong CRC, bad ETX, LEN over 2068, wrong command id, malformed data)"
    )
    package static let busy = Entry(
        code: 7, name: "busy",
        meaning:
            "the terminal is busy: another ucube process holds it (its pid is named), or another command is in flight on this link; pay: a payment with the same --request-id is running, or its outcome is unknown (resolve it with `history resolve`)"
    )
    package static let tms = Entry(
        code: 8, name: "tms",
        meaning:
            "the TMS could not be reached, refused the request or sent a malformed answer (the URL and HTTP status are printed)"
    )
    package static let updateFailed = Entry(
        code: 9, name: "update-failed",
        meaning:
            "mdm-update: at least one item was not installed (the terminal keeps its old version of it; re-run to retry)"
    )
    package static let dataError = Entry(
        code: 65, name: "data",
        meaning:
            "input data could not be decoded (ucube decode: malformed frame, TLV or hex, not a btsnoop capture, or over its size limit; --device replay:FILE: not a usable recording, or over 64 MiB; test, simulate --suite: not a valid suite file)"
    )
    package static let usage = Entry(
        code: 64, name: "usage",
        meaning:
            "bad command line: unknown command or option, odd-length hex, a payload too long for a frame, a value out of range, no TMS configured, a config.json that is not a JSON object (FILE:LINE:COLUMN)"
    )
    package static let unavailable = Entry(
        code: 69, name: "unavailable",
        meaning:
            "simulate, serve: the address to listen on is already in use or cannot be bound; sim: no running `ucube simulate` to steer at that address"
    )
    package static let cannotCreate = Entry(
        code: 73, name: "cannot-create",
        meaning:
            "a directory or file cannot be created: the state directory ($XDG_STATE_HOME/ucube), an --output file or its directory; or it is refused: a symbolic link where ucube writes a file, a state or runtime directory another user owns or others can write"
    )
    package static let ioError = Entry(
        code: 74, name: "io-error",
        meaning:
            "a write failed: stdout is full or closed before the command's outcome reached it, a file could not be read or written"
    )

    // Payments (`ucube pay`): the final status decides the exit code.
    package static let declined = Entry(code: 10, name: "declined", meaning: "pay: the payment was DECLINED")
    package static let cancelled = Entry(
        code: 11, name: "cancelled",
        meaning:
            "pay: the payment was CANCELLED; mdm-update: interrupted (Ctrl-C) between blocks, the terminal keeps its old version; read-card, display, choose: cancelled (Ctrl-C, `ucube cancel`) or, for choose, aborted on the terminal; test: the run was stopped (Ctrl-C, SIGTERM, SIGHUP, `ucube cancel`), its report written"
    )
    package static let card = Entry(
        code: 12, name: "card",
        meaning:
            "pay: a card problem (CARD_WAIT_FAILED, UNSUPPORTED_CARD, REFUSED_CARD, CHIP_REQUIRED, NFC_OUTCOME_*); read-card: the card could not be read (no application in common, a failed read)"
    )
    package static let paymentError = Entry(
        code: 13, name: "payment-error",
        meaning: "pay: the payment ended in ERROR (a terminal or task failure, a wrong cryptogram, reader or outcome)")
    package static let tooLate = Entry(
        code: 14, name: "too-late", meaning: "cancel: too late, the card was already read")
    package static let replayDiverged = Entry(
        code: 15, name: "replay-diverged",
        meaning: "--device replay:FILE: the command sent a frame the recording does not have (both are printed)")

    package static let notYours = Entry(
        code: 20, name: "not-yours",
        meaning:
            "cancel: the device's control socket belongs to another user (EACCES, EPERM): a payment may be running there, and the terminal was left alone"
    )
    package static let tryAgain = Entry(
        code: 21, name: "try-again",
        meaning:
            "cancel: the process holding the device did not take the request within \(ControlSocket.reachBudget.components.seconds) s (its queue full, or it was starting or ending); nothing was cancelled, try again"
    )

    package static let diagnoseBlocking = Entry(
        code: 16, name: "blocking",
        meaning: "diagnose: at least one finding blocks a payment (each says what to do; warnings alone exit 0)")

    package static let testFailed = Entry(
        code: 17, name: "test-failed",
        meaning:
            "test: at least one case of the suite failed (TAP `not ok` or a JUnit failure says which, expected against got)"
    )

    package static let fleetFailed = Entry(
        code: 18, name: "fleet-failed",
        meaning:
            "a fleet run (--device repeated, --devices): at least one terminal failed or was not started (--max-failures); each terminal's verdict is in the JSON lines, the summary and --junit, and the same command run again retries only those"
    )

    package static let journalFailed = Entry(
        code: 19, name: "journal",
        meaning:
            "pay: a journal record of the payment could not be written (a full disk): the payment was cancelled if it still could be, completed otherwise; stderr says its status, amount and request id, and APPROVED there means the card was charged"
    )

    package static let all: [Entry] = [
        ok, failure, terminalStatus, timeout, link, protocolError, busy, tms, updateFailed, declined, cancelled, card,
        paymentError, tooLate,
        replayDiverged, diagnoseBlocking, testFailed, fleetFailed, journalFailed, notYours, tryAgain,
        usage, dataError, unavailable, cannotCreate, ioError,
    ]

    package static func code(for error: LinkError) -> Entry {
        switch error.code {
        case .timeout: timeout
        case .disconnected, .notConnected, .connectFailed, .connectionRefused, .hostUnreachable, .hostNotFound: link
        case .badFrame, .unexpectedResponse, .malformedResponse: protocolError
        case .busy: busy
        case .invalidRequest: usage
        case .replayDiverged: replayDiverged
        }
    }
}

/// Every failure the CLI reports, in one shape: a stable kebab-case `code` (what `--json` prints and scripts match),
/// the documented exit code, one sentence, what to do about it, and the library's own text (`detail`, shown only
/// with `--log-level debug` and logged). `UCube.report` prints it once; see `CLIFailure.init(reporting:)` for how any
/// error becomes one.
package struct CLIFailure: Error, CustomStringConvertible {
    package let code: String
    package let exit: ExitCodes.Entry
    package let message: String
    package let hint: String?
    package let detail: String?

    package var description: String { message }

    /// A failure whose code is its exit code's name (`usage`, `terminal-status`, …) unless `code` names it better.
    package init(
        _ exit: ExitCodes.Entry, _ message: String, code: CLIErrorCode? = nil, hint: String? = nil,
        detail: String? = nil
    ) {
        self.code = code?.name ?? exit.name
        self.exit = exit
        self.message = message
        self.hint = hint
        self.detail = detail
    }

    package init(_ error: LinkError) {
        code = CLIErrorCode.name(of: error.code)
        exit = ExitCodes.code(for: error)
        message = error.reason
        hint = error.hint
        detail = error.detail
    }
}
