import Foundation
import Testing
import UCubeLog
import UCubeRuntime

@testable import UCubeCLI

/// Colour on a terminal (`TerminalColour`, applied by `Console` after the mask): when a stream gets it, and what it
/// colours.
struct TerminalColourTests {
    static let green = "\u{1B}[32m", red = "\u{1B}[1;31m", yellow = "\u{1B}[33m", dim = "\u{1B}[2m"
    static let reset = "\u{1B}[0m"

    /// The decision, a pure function of isatty and the environment (no-color.org: `NO_COLOR` "present and not an
    /// empty string" turns colour off; `TERM=dumb` is a terminal without escape codes).
    @Test(arguments: [
        (true, ["TERM": "xterm-256color"], true),
        (false, ["TERM": "xterm-256color"], false),
        (true, ["TERM": "xterm", "NO_COLOR": "1"], false),
        (true, ["TERM": "xterm", "NO_COLOR": "0"], false),
        (true, ["TERM": "xterm", "NO_COLOR": ""], true),
        (true, ["TERM": "dumb"], false),
        (true, ["TERM": ""], false),
        (true, [:], false),
        (false, ["TERM": "dumb", "NO_COLOR": "1"], false),
    ])
    func whetherAStreamGetsColour(isTerminal: Bool, environment: [String: String], colour: Bool) {
        #expect(TerminalColour.enabled(isTerminal: isTerminal, environment: environment) == colour)
    }

    @Test func statusesAreColouredByWhatTheyMean() {
        #expect(TerminalColour.apply("status: APPROVED\n") == "status: \(Self.green)APPROVED\(Self.reset)\n")
        #expect(TerminalColour.apply("status: DECLINED") == "status: \(Self.red)DECLINED\(Self.reset)")
        #expect(
            TerminalColour.apply("status: ERROR (the link dropped)")
                == "status: \(Self.red)ERROR\(Self.reset) (the link dropped)")
        #expect(TerminalColour.apply("status: CANCELLED") == "status: \(Self.yellow)CANCELLED\(Self.reset)")
        // A history line: the status wherever it stands as a word, not inside another.
        #expect(
            TerminalColour.apply("2026-11-28 16:58:15 +05:30  DECLINED (simulated)  NOT_APPROVED")
                == "2026-11-28 16:58:15 +05:30  \(Self.red)DECLINED\(Self.reset) (simulated)  NOT_APPROVED")
    }

    @Test func severitiesAndLabelsAreColoured() {
        #expect(
            TerminalColour.apply("ucube: error: payment DECLINED\nhint: try another card")
                == "\(Self.red)ucube: error:\(Self.reset) payment \(Self.red)DECLINED\(Self.reset)\n"
                + "\(Self.dim)hint: try another card\(Self.reset)")
        #expect(
            TerminalColour.apply("ucube: warning: the recording is not kept")
                == "\(Self.yellow)ucube: warning:\(Self.reset) the recording is not kept")
        // diagnose's findings and their indented hints; a suite's TAP lines.
        #expect(
            TerminalColour.apply("  blocking  link  refused\n            hint: start it")
                == "  \(Self.red)blocking\(Self.reset)  link  refused\n            \(Self.dim)hint: start it\(Self.reset)"
        )
        #expect(
            TerminalColour.apply("  warning   battery  12 %") == "  \(Self.yellow)warning\(Self.reset)   battery  12 %")
        #expect(TerminalColour.apply("not ok 2 - declined") == "\(Self.red)not ok\(Self.reset) 2 - declined")
        #expect(TerminalColour.apply("ok 1 - approved") == "\(Self.green)ok\(Self.reset) 1 - approved")
        #expect(
            TerminalColour.apply("ok 3 - tapped # SKIP stopped")
                == "\(Self.yellow)ok\(Self.reset) 3 - tapped # SKIP stopped")
        // A word that only starts like one is not it.
        #expect(TerminalColour.apply("okay then") == "okay then")
    }

    /// JSON is never coloured, even a JSON line among text; nor is a line that draws with escape codes of its own.
    @Test(arguments: [
        #"{"status":"APPROVED"}"#, #"  "status" : "DECLINED","#, "[\"ERROR\"]", "\r\u{1B}[2KInsert a card",
        "plain text, nothing to colour",
    ])
    func jsonAndDrawnLinesAreLeftAlone(line: String) {
        #expect(TerminalColour.apply(line) == line)
    }

    /// The door masks first, then colours (`Console.out` and `err` write `apply(LogScrubber.scrub(text), when:)`): a
    /// PAN beside a coloured word or on a coloured line is masked all the same, and the colour is the only difference
    /// from a pipe's text.
    @Test func colourNeverKeepsAPANFromItsMask() {
        let pan = "4761739001010010"
        for text in [
            "status: APPROVED\ncard: \(pan)\n", "status: DECLINED \(pan)\n", "hint: card \(pan) was declined\n",
            "ucube: error: \(pan)\n", "ok 1 - \(pan)\n",
        ] {
            let shown = TerminalColour.apply(LogScrubber.scrub(text), when: true)
            #expect(!shown.contains(pan), "\(shown.debugDescription)")
            #expect(shown.contains("476173******0010"), "\(shown.debugDescription)")
            #expect(shown.contains("\u{1B}["), "\(shown.debugDescription)")
            #expect(shown.strippingEscapes == TerminalColour.apply(LogScrubber.scrub(text), when: false))
        }
    }
}

extension String {
    /// The text without its SGR escape codes.
    var strippingEscapes: String {
        replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
    }
}
