import Foundation
import UCubeLink
import UCubeProtocol
import UCubeRuntime

/// What the fuzz targets (Fuzz/, `@_spi(Fuzz) import UCubeCLI`) reach in the command line: the files ucube reads back
/// from disk, the control socket, and text typed on the command line or in the shell. Each entry runs the same code
/// the commands run, minus the printing; a thrown error is the expected answer to bad input, a trap is a finding.
package enum CLIFuzzSurface {
    // MARK: Files read back from disk

    /// `$XDG_RUNTIME_DIR/ucube/session-*`, as `Connection` reads it before every command.
    package static func sessionFile(_ data: Data) {
        switch SessionRecord.decode(Array(data)) {
        case .clean(let rules, let terminal): _ = (rules.nextSequence, terminal?.hex)
        case .stale(let owner): _ = owner
        case .missing: break
        }
    }

    /// `$XDG_CONFIG_HOME/ucube/devices.json`, as `--device NAME` and `connect --list` read it.
    package static func rememberedDevices(_ data: Data) {
        guard let devices = try? RememberedDevices.decode(data) else { return }
        for device in devices {
            _ = try? DeviceAddress(parsing: device.address)
        }
    }

    /// A recording (`--record FILE`), as `--device replay:FILE` and `decode` read it: parsed, decoded frame by frame,
    /// and written back, which must read again (the writer never writes what the reader refuses).
    package static func recording(_ data: Data) {
        // As `decode` streams it, line by line (`DecodeStream`), whether the whole reads or not.
        _ = try? UCube.Decode.reports(
            for: String(decoding: data, as: UTF8.self), kind: .auto, context: .payment, secured: false)
        guard let recording = try? Recording(parsing: String(decoding: data, as: UTF8.self)) else { return }
        _ = try? TraceDump(recording: recording).decode(context: .payment, inSession: false)
        var text = Recording.header(command: recording.command)
        for link in recording.links {
            text += Recording.line(device: link.device, session: link.session)
            for event in link.events { text += Recording.line(for: event) }
        }
        do {
            let again = try Recording(parsing: text)
            precondition(again.links.count == recording.links.count, "a link lost in writing")
        } catch {
            preconditionFailure("a recording written back does not read: \(error)")
        }
    }

    /// A fleet run's run file and devices file, as a fleet run reads them: each verdict decoded, written back (it
    /// reads the same again), shown in the table and the JUnit report, whose text never carries markup or a control
    /// character from the file; each device line checked.
    package static func fleetFiles(_ data: Data) {
        let encoder = JSONEncoder()
        for verdict in FleetRunFile.parse(Array(data)).values {
            if let line = try? encoder.encode(verdict) {
                let again = FleetRunFile.parse(Array(line))
                precondition(again[verdict.device]?.result == verdict.result, "a verdict written back reads otherwise")
            }
            _ = FleetReporter.table([verdict])
            for testCase in JUnitReport.cases(command: "fuzz", verdicts: [verdict]) {
                for text in [testCase.classname, testCase.name] {
                    let escaped = JUnitReport.escape(text)
                    precondition(
                        !escaped.unicodeScalars.contains { $0 == "<" || $0 == ">" || $0 == "\"" || $0.value < 0x20 },
                        "unescaped markup in the JUnit report")
                }
            }
        }
        _ = try? FleetDevices.list(given: [], file: "fuzz", text: String(decoding: data, as: UTF8.self))
        if case .runFile(let header, _) = FleetRunFile.contents(Array(data)) {
            precondition(
                FleetRunFile.Header.parse(header.line) == header, "a run file's header written back reads otherwise")
        }
    }

    // MARK: The control socket

    /// A request arriving in the pieces `cuts` gives (offsets into `bytes`), as the holder's server reads
    /// it; then the answer line, as `ucube cancel` reads it back. Checks what the socket promises: a line is taken up
    /// to its first newline whatever the cuts, and more than `RequestLineBuffer.maxRequest` bytes without one is refused.
    package static func controlRequest(_ bytes: [UInt8], cuts: [Int]) {
        var buffer = RequestLineBuffer()
        var outcome = RequestLineBuffer.Outcome.needMore
        var start = 0
        for cut in (cuts.map { min(max($0, 0), bytes.count) }.sorted() + [bytes.count]) where outcome == .needMore {
            outcome = buffer.append(Array(bytes[start..<max(start, cut)]))
            start = max(start, cut)
        }
        var whole = RequestLineBuffer()
        let expected = whole.append(bytes)
        if let newline = bytes.firstIndex(of: 0x0A) {
            let line = String(decoding: bytes[..<newline], as: UTF8.self).trimmingCharacters(
                in: .whitespacesAndNewlines)
            // Cut into pieces, a line can only be refused as too long if a piece before its newline already was.
            precondition(outcome == .line(line) || (outcome == .tooLong && newline > RequestLineBuffer.maxRequest))
            _ = ControlRequest(line: line)
        } else {
            precondition(expected == (bytes.count > RequestLineBuffer.maxRequest ? .tooLong : .needMore))
            precondition(outcome == expected)
        }
        let answer = CancelAnswer(line: String(decoding: bytes, as: UTF8.self))
        precondition(CancelAnswer(line: answer.line) == answer)
    }

    // MARK: Text typed on the command line or in the shell

    /// `text` as every value reader of `ucube rpc` takes it, as `decode` takes it (hex, frames, TLV, status,
    /// NFC outcome, a `--trace` dump; with and without --secured, and its JSON), as `pay` takes an amount, as the
    /// shell splits a line into words, and as the log scrubber masks hex typed as an argument.
    /// `decode --as btsnoop`: the capture read, its frames decoded, the text and JSON made. Bytes without the btsnoop
    /// magic get a header first (datalink 1001, 1002 or 2001 by the first byte), so the records are what varies.
    package static func capture(_ bytes: [UInt8]) {
        var input = bytes
        if !BTSnoopFile.hasMagic(bytes) {
            let datalink: UInt32 = [1001, 1002, 2001][Int(bytes.first ?? 0) % 3]
            input =
                BTSnoopFile.magic + [0, 0, 0, 1] + [0, 0, UInt8(datalink >> 8), UInt8(datalink & 0xFF)]
                + bytes.dropFirst()
        }
        for handle in [nil, UInt16(0x0012)] {
            guard
                let report = try? UCube.Decode.captureReport(
                    bytes: input, name: "fuzz", handle: handle, context: .payment, secured: false)
            else { continue }
            _ = report.lines
            _ = try? JSONOutput.encode(report)
        }
    }

    package static func commandLineText(_ text: String) {
        _ = try? Parse.hex(text)
        _ = try? Parse.byte(text)
        _ = try? Parse.seconds(text)
        _ = try? Parse.tag(text)
        _ = try? Parse.tagList(text)
        _ = try? Parse.languages(text)
        _ = try? Parse.responseCode(text)
        _ = try? Parse.dateTime(text)
        if let currency = try? Parse.currency(text) { _ = try? Parse.amount("12.50", currency, option: "amount") }
        _ = try? Parse.amount(text, Currency.eur, option: "amount")
        _ = try? ShellWords.split(text)
        _ = ShellWords.splitLeniently(text)
        _ = Masking.redactCardDataInHex(text)
        // As `UCube.Decode.reports`: a trace dump (whatever --as says), else hex as each kind. The dump is parsed
        // once here, not once per kind: its parse is most of the cost.
        let encoder = JSONEncoder()
        let trace = TraceDump(text)
        for secured in [false, true] {
            if let trace {
                _ = try? encoder.encode(trace.decode(context: .payment, inSession: secured))
                continue
            }
            for kind in UCube.Decode.Kind.allCases {
                _ = try? encoder.encode(
                    UCube.Decode.hexReport(for: text, kind: kind, context: .payment, secured: secured))
            }
        }
    }
}
