import Testing
import UCubeProtocol
import UCubeRuntime
import UCubeSimulator

@testable import UCubeCLI

/// The shell's pure parts: the line splitter and the completion candidates.
@Suite struct ShellWordsTests {
    @Test(arguments: [
        ("rpc get-info C4 D1", ["rpc", "get-info", "C4", "D1"]),
        ("  pay   10  ", ["pay", "10"]),
        ("rpc raw 5001 'C4 D1'", ["rpc", "raw", "5001", "C4 D1"]),
        (#"rpc raw 5001 "C4 \"x\" D1""#, ["rpc", "raw", "5001", #"C4 "x" D1"#]),
        (#"a\ b c"#, ["a b", "c"]),
        ("info # a comment", ["info"]),
        ("# only a comment", []),
        ("tlv a#b", ["tlv", "a#b"]),
        ("'' x", ["", "x"]),
        ("", []),
    ])
    func splits(_ line: String, _ words: [String]) throws {
        #expect(try ShellWords.split(line) == words)
    }

    @Test(arguments: ["plain", "YT-Touch 0001", "it's", "", "a\\b \"c\"", "/tmp/x y/tms-ca.pem", "$HOME", "#x"])
    func quoteIsTheInverseOfSplit(_ word: String) throws {
        #expect(try ShellWords.split(ShellWords.quote(word)) == [word])
    }

    @Test func quoteLeavesPlainWordsAlone() {
        #expect(ShellWords.quote("https://127.0.0.1:8443") == "https://127.0.0.1:8443")
        #expect(ShellWords.quote("YT-Touch 0001") == "'YT-Touch 0001'")
        #expect(ShellWords.quote("it's") == #"'it'\''s'"#)
    }

    @Test func unterminatedQuoteIsAnErrorButCompletionStillSplits() {
        #expect(throws: ShellWords.UnterminatedQuote.self) { try ShellWords.split("rpc raw 'C4") }
        #expect(ShellWords.splitLeniently("rpc raw 'C4") == ["rpc", "raw", "C4"])
    }
}

@Suite struct ShellCompletionTests {
    let ready = CompletionState(linkState: .ready)
    let secured = CompletionState(linkState: .secured)
    let stepping = CompletionState(linkState: .secured, stepping: true)

    @Test func topLevelIsTheCommandTreeAndTheShellWords() {
        let top = ShellCompletion.candidates(words: [], partial: "", state: ready)
        for word in ["info", "pay", "rpc", "cancel", "history", "decode", "set", "exit", "reconnect"] {
            #expect(top.contains(word), "\(word)")
        }
        #expect(!top.contains("next"))
        #expect(ShellCompletion.candidates(words: [], partial: "p", state: ready) == ["pay"])
    }

    @Test func rpcCommandsFollowTheTerminalState() {
        #expect(
            ShellCompletion.candidates(words: ["rpc"], partial: "get-", state: secured)
                == ["get-status", "get-info", "get-secured-tag", "get-plain-tag", "get-key-info"].sorted { a, b in
                    CommandCatalogue.all.firstIndex { $0.cliName == a }! < CommandCatalogue.all.firstIndex {
                        $0.cliName == b
                    }!
                })
        let inReady = ShellCompletion.candidates(words: ["rpc"], partial: "get-", state: ready)
        #expect(Set(inReady) == ["get-status", "get-info", "get-key-info"])
        // Before any link is open, every command is offered.
        #expect(
            Set(ShellCompletion.candidates(words: ["rpc"], partial: "get-", state: CompletionState()))
                == ["get-status", "get-info", "get-key-info", "get-plain-tag", "get-secured-tag"])
    }

    @Test func optionsComeFromTheCommandType() {
        let options = ShellCompletion.candidates(words: ["pay", "10"], partial: "--s", state: ready)
        #expect(Set(options) == ["--select", "--step"])
        #expect(ShellCompletion.candidates(words: ["pay"], partial: "--card-t", state: ready) == ["--card-timeout"])
    }

    @Test func valuesComeFromTheProtocolTables() {
        #expect(
            ShellCompletion.candidates(words: ["pay", "10", "--card"], partial: "", state: ready) == CardCatalogue.names
        )
        #expect(
            ShellCompletion.candidates(words: ["pay", "10", "--card"], partial: "mc-two", state: ready) == [
                "mc-two-apps"
            ])
        #expect(
            ShellCompletion.candidates(words: ["pay", "10", "--readers"], partial: "icc,n", state: ready) == ["icc,nfc"]
        )
        #expect(
            ShellCompletion.candidates(words: ["rpc", "get-plain-tag"], partial: "amountAuth", state: secured)
                .contains("amountAuthorised"))
        #expect(ShellCompletion.candidates(words: ["rpc", "raw"], partial: "get-i", state: ready) == ["get-info"])
        #expect(
            ShellCompletion.candidates(words: ["set"], partial: "", state: ready) == [
                "trace", "json", "timeout", "device", "authorize", "log-level",
            ])
        #expect(ShellCompletion.candidates(words: ["set", "json"], partial: "", state: ready) == ["on", "off"])
        #expect(
            ShellCompletion.candidates(words: ["set", "authorize"], partial: "ht", state: ready) == ["https://"])
        #expect(ShellCompletion.candidates(words: ["set", "log-level"], partial: "", state: ready).contains("rpc="))
    }

    @Test func steppingOffersOnlyTheStepCommands() {
        let words = ShellCompletion.candidates(words: [], partial: "", state: stepping)
        #expect(
            words.contains("next") && words.contains("continue") && words.contains("tlv") && words.contains("cancel"))
        #expect(!words.contains("pay"))
        #expect(
            ShellCompletion.candidates(words: ["tlv"], partial: "amountAuth", state: stepping).contains(
                "amountAuthorised"))
    }
}

/// The update progress text (`mdm-update`): the bar on a TTY and the JSON lines.
@Suite struct UpdateProgressFormatTests {
    @Test func barShowsBytesPercentRateAndETA() {
        // 409,600 of 1,105,920 bytes in 80 s: 5,120 B/s, 136 s to go.
        let line = ProgressFormat.bar(
            label: "SVPP firmware 6.0.1.0", sent: 409_600, total: 1_105_920, elapsed: .seconds(80), width: 10)
        #expect(line == "SVPP firmware 6.0.1.0  [###-------]  37%  409.6 kB / 1.1 MB  5.1 kB/s  ETA 2:16")
    }

    @Test func finishedBarHasNoETA() {
        let line = ProgressFormat.bar(label: "x", sent: 2040, total: 2040, elapsed: .seconds(1), width: 4)
        #expect(line == "x  [####] 100%  2.0 kB / 2.0 kB  2.0 kB/s")
    }

    @Test func noRateBeforeTimePasses() {
        #expect(ProgressFormat.rate(sent: 100, elapsed: .milliseconds(10)) == nil)
        #expect(
            ProgressFormat.jsonLine(label: "a\"b", sent: 0, total: 10, elapsed: .zero)
                == #"{"event":"progress","item":"a\"b","bytes":0,"total":10,"percent":0.0,"rate":null,"eta":null,"version":1}"#
        )
    }

    /// At 80 columns (and narrower), the bar shrinks before the rate and the ETA go, and the line never wraps.
    @Test func theBarFitsTheTerminal() {
        let label = "SVPP firmware 6.0.1.0 (contact kernel)"
        let wide = ProgressFormat.fitted(
            label: label, sent: 409_600, total: 1_105_920, elapsed: .seconds(80), columns: 200)
        #expect(wide.contains("[########") && wide.contains("ETA 2:16"), "\(wide)")
        // An item's usual label at 80 columns: the bar gives up cells, the rate and the ETA stay.
        let eighty = ProgressFormat.fitted(
            label: "SVPP firmware 6.0.1.0", sent: 409_600, total: 1_105_920, elapsed: .seconds(80),
            columns: 80)
        #expect(eighty.count <= 79, "\(eighty)")
        #expect(eighty.contains("5.1 kB/s  ETA 2:16"), "\(eighty)")
        #expect(!eighty.contains("[########################]"), "\(eighty)")
        // A long label: the bar at its narrowest, then the ETA and the rate go.
        let narrow = ProgressFormat.fitted(
            label: label, sent: 409_600, total: 1_105_920, elapsed: .seconds(80), columns: 80)
        #expect(narrow.count <= 79 && narrow.contains("[##------]") && !narrow.contains("ETA"), "\(narrow)")
        for columns in [20, 40, 60, 79, 80, 100] {
            let line = ProgressFormat.fitted(
                label: label, sent: 409_600, total: 1_105_920, elapsed: .seconds(80), columns: columns)
            #expect(line.count <= max(20, columns - 1), "\(columns): \(line)")
        }
    }

    /// Not on a terminal (a CI log): a plain line at the first sample, at each tenth, and at most every 10 s between.
    @Test func aLogGetsALineEveryTenthAndEveryTenSeconds() {
        var pace = ProgressPace()
        var lines: [Int] = []
        // 1,000 bytes over 200 s, a sample a second: 5 bytes a second.
        for second in 0...200 where pace.due(sent: Int64(second * 5), total: 1000, elapsed: .seconds(second)) {
            lines.append(second)
        }
        #expect(lines.first == 0)
        #expect(lines.last == 200)
        for tenth in stride(from: 20, through: 200, by: 20) { #expect(lines.contains(tenth), "\(tenth): \(lines)") }
        for (a, b) in zip(lines, lines.dropFirst()) { #expect(b - a <= 10, "a gap from \(a) to \(b) s: \(lines)") }
        // Fast work (all in a second, a sample a block): one line a tenth, no more.
        var fast = ProgressPace()
        let count = (0...100).filter { fast.due(sent: Int64($0 * 10), total: 1000, elapsed: .milliseconds($0 * 10)) }
        #expect(count.count == 11, "\(count)")
        #expect(
            ProgressFormat.line(label: "ICC EMV config", sent: 500, total: 1000, elapsed: .seconds(2))
                == "ICC EMV config: 50%, 500 B of 1.0 kB, 250 B/s, ETA 0:02")
    }

    @Test func jsonLineCarriesRateAndETA() {
        #expect(
            ProgressFormat.jsonLine(label: "ICC EMV config", sent: 500, total: 1000, elapsed: .seconds(2))
                == #"{"event":"progress","item":"ICC EMV config","bytes":500,"total":1000,"percent":50.0,"rate":250,"eta":2.0,"version":1}"#
        )
    }

    @Test(
        arguments: [(0, "0 B"), (999, "999 B"), (1000, "1.0 kB"), (8_388_608, "8.4 MB"), (2_500_000_000, "2.5 GB")]
            as [(Int64, String)])
    func bytes(_ n: Int64, _ text: String) {
        #expect(ProgressFormat.bytes(n) == text)
    }

    @Test func durations() {
        #expect(ProgressFormat.duration(seconds: 59.2) == "1:00")
        #expect(ProgressFormat.duration(seconds: 3725) == "1:02:05")
    }
}

/// The status line never wraps (issue 25: the progress bar flooded a terminal narrower than the bar): cut to the
/// terminal's width less one column, with an ellipsis.
@Suite struct StatusLineFitTests {
    @Test func aLongLineIsCutToTheWidth() {
        let bar = "SVPP firmware [########----------------]  37% 1.2 MB of 3.3 MB 12.5 kB/s 3 min left"
        let fitted = StatusLine.fit(bar, columns: 40)
        #expect(fitted.count == 39)
        #expect(fitted.hasSuffix("…"))
        #expect(StatusLine.fit("short", columns: 40) == "short")
        #expect(StatusLine.fit(bar, columns: nil) == bar)
    }
}
