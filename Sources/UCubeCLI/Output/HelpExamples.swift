/// The examples and related reading of every command's help and of the man page, in one table keyed by the command's
/// path under `ucube` ("" for the root, "pay", "rpc get-info"). Each command's configuration ends its discussion
/// with `HelpExamples.section(PATH)` (or is `HelpExamples.discussion(PATH)` when it has no discussion of its own), so
/// `--help`, `help`, the shell and `--experimental-dump-help` show the same text; Scripts/generate-manual.py reads its
/// EXAMPLES: and SEE ALSO: paragraphs back out of the dump into the man page. `HelpExamplesTests` parses every example
/// with the real parser and runs some of the simulator's through the built binary.
enum HelpExamples {
    /// A command line as a user types it (`ucube` first, shell quoting, nothing else: no pipe, no variable), and what
    /// it does, in one line each.
    struct Example {
        let line: String
        let does: String

        init(_ line: String, _ does: String) {
            self.line = line
            self.does = does
        }
    }

    /// One command's examples (two or three), and the commands (paths of this table) and documents (`docs/NAME.md`)
    /// to read next.
    struct Entry {
        let path: String
        let examples: [Example]
        let seeAlso: [String]
    }

    /// The heads of the two paragraphs, as the man page generator recognises them.
    static let examplesHead = "EXAMPLES:"
    static let seeAlsoHead = "SEE ALSO:"

    /// The paragraphs for `path`, after a blank line: to end a discussion with. Empty when the help is not going to
    /// be shown (`UCube.includeDiscussion`: a short command's start-up builds every configuration).
    static func section(_ path: String) -> String {
        let text = discussion(path)
        return text.isEmpty ? "" : "\n\n" + text
    }

    /// The paragraphs for `path` alone: the discussion of a command that has no other.
    static func discussion(_ path: String) -> String {
        guard UCube.includeDiscussion, let entry = entry(path) else { return "" }
        return rendered(entry)
    }

    static func entry(_ path: String) -> Entry? { entries.first { $0.path == path } }

    /// EXAMPLES: each example's line as a comment, then the command; SEE ALSO: commands with `ucube` before them, and
    /// documents, in lines of at most 80 columns. Every line fits 80 columns (a test checks), so the help's wrapping
    /// never breaks a command line.
    static func rendered(_ entry: Entry) -> String {
        let examples = entry.examples.map { "  # \($0.does)\n  \($0.line)" }.joined(separator: "\n\n")
        let names = entry.seeAlso.map { $0.hasSuffix(".md") ? $0 : "ucube " + $0 }
        var lines = [String]()
        for (index, name) in names.enumerated() {
            let item = name + (index < names.count - 1 ? "," : "")
            if let last = lines.last, last.count + 1 + item.count <= 80 {
                lines[lines.count - 1] = last + " " + item
            } else {
                lines.append("  " + item)
            }
        }
        return examplesHead + "\n" + examples + "\n\n" + seeAlsoHead + "\n" + lines.joined(separator: "\n")
    }

    static let entries: [Entry] = [
        Entry(
            path: "",
            examples: [
                Example("ucube --device sim info", "The built-in simulator's serial number, versions, state, battery"),
                Example(
                    "ucube --device sim pay 12.50 --currency EUR", "Take €12.50 from the simulator's Visa chip card"),
                Example("ucube connect \"YT-Touch 0001\"", "Find a uCube Touch over Bluetooth and make it the default"),
            ],
            seeAlso: [
                "docs/guide.md", "docs/exit-codes.md", "docs/README.md", "docs/protocol.md", "docs/fleet.md",
                "docs/authorization.md", "docs/serve.md", "docs/json.md",
            ]),
        Entry(
            path: "info",
            examples: [
                Example(
                    "ucube --device sim info", "The simulator's serial and part number, versions, state and battery"),
                Example("ucube --device sim --json info", "The same as one JSON object, for a script"),
                Example(
                    "ucube info --devices devices.txt --junit info.xml", "Every terminal of a file, with a JUnit report"
                ),
            ],
            seeAlso: ["connect", "diagnose", "rpc get-info", "docs/fleet.md"]),
        Entry(
            path: "pay",
            examples: [
                Example("ucube --device sim pay 12.50 --currency EUR", "Take €12.50 from the simulated Visa chip card"),
                Example(
                    "ucube --device sim pay 10 --card visa-contactless --receipt",
                    "Pay €10 with a contactless card and print the receipt"),
                Example("ucube --device sim pay 10 --authorize decline", "A payment the issuer declines (exit 10)"),
            ],
            seeAlso: ["history", "cancel", "read-card", "test", "docs/authorization.md", "docs/history.md"]),
        Entry(
            path: "read-card",
            examples: [
                Example("ucube --device sim read-card", "Wait for a card: masked PAN, expiry, application, scheme"),
                Example(
                    "ucube --device sim read-card --card visa-contactless --json",
                    "Read a contactless card, as JSON"),
                Example(
                    "ucube read-card --readers nfc --card-timeout 60", "Wait a minute on the contactless reader only"),
            ],
            seeAlso: ["pay", "rpc nfc-start", "simulate"]),
        Entry(
            path: "display",
            examples: [
                Example(
                    "ucube --device sim display Welcome", "Show Welcome on the terminal's screen, and return at once"),
                Example("ucube display \"Insert card\" --timeout 5", "Show it for five seconds (a key ends it sooner)"),
                Example(
                    "ucube display \"Press OK\" --wait-key --json", "Wait up to 30 s for a key and print it as JSON"),
            ],
            seeAlso: ["choose", "rpc display-message"]),
        Entry(
            path: "choose",
            examples: [
                Example(
                    "ucube --device sim choose Coffee Tea Water --title Drink",
                    "A list on the screen; prints the item chosen (the simulator's: 1)"),
                Example(
                    "ucube choose Yes No --timeout 20 --json", "Wait at most 20 s for a choice, and print it as JSON"),
            ],
            seeAlso: ["display", "rpc display-list-box"]),
        Entry(
            path: "cancel",
            examples: [
                Example("ucube cancel", "From another shell: cancel the payment running on the default device"),
                Example(
                    "ucube --device sim cancel", "Put an idle terminal back in READY (CancelAll, ExitSecureSession)"),
            ],
            seeAlso: ["pay", "read-card", "mdm-update"]),
        Entry(
            path: "history",
            examples: [
                Example("ucube history", "The journalled payments, oldest first (history list)"),
                Example("ucube history --unresolved", "The payments whose outcome is unknown and not yet resolved"),
                Example("ucube history totals --since today", "Today's counts and sums per currency and type"),
            ],
            seeAlso: ["pay", "docs/history.md"]),
        Entry(
            path: "history list",
            examples: [
                Example("ucube history list --last 10", "The last ten payments"),
                Example(
                    "ucube history --since today --status approved,declined --device sim",
                    "Today's approved and declined payments on the simulator"),
                Example("ucube --json history list --unresolved", "The unknown outcomes as JSON, for a script"),
            ],
            seeAlso: ["history show", "history resolve", "docs/history.md"]),
        Entry(
            path: "history show",
            examples: [
                Example("ucube history show order-1042", "One payment by its request id: its records and outcome"),
                Example("ucube history show order-1042 --receipt", "Its receipt again, 40 columns of text"),
                Example(
                    "ucube --json history show order-1042 --receipt-file r.json",
                    "Write the receipt as JSON to r.json"),
            ],
            seeAlso: ["history list", "pay", "docs/history.md"]),
        Entry(
            path: "history resolve",
            examples: [
                Example(
                    "ucube history resolve order-1042 --status declined --note \"acquirer\"",
                    "Record that the acquirer says the unknown payment was declined"),
                Example("ucube history resolve 7F3A --status approved", "Resolve it by the start of its payment key"),
            ],
            seeAlso: ["history list", "docs/history.md"]),
        Entry(
            path: "history totals",
            examples: [
                Example("ucube history totals --since today", "Today's totals, from local midnight"),
                Example(
                    "ucube history totals --since yesterday --until today --json",
                    "Yesterday's totals as JSON, amounts in minor units"),
            ],
            seeAlso: ["history list", "docs/history.md"]),
        Entry(
            path: "locale",
            examples: [
                Example("ucube --device sim locale list", "The locales the terminal supports"),
                Example("ucube --device sim locale set fr", "Switch the merchant interface to French"),
            ],
            seeAlso: ["rpc set-info-field"]),
        Entry(
            path: "locale get",
            examples: [
                Example("ucube --device sim locale get", "The terminal's current locale"),
                Example("ucube --json locale get", "The same as JSON, on the default device"),
            ],
            seeAlso: ["locale list", "locale set"]),
        Entry(
            path: "locale set",
            examples: [
                Example("ucube --device sim locale set fr", "Switch the merchant interface to French"),
                Example("ucube locale set en", "Back to English on the default device"),
            ],
            seeAlso: ["locale list", "rpc set-info-field"]),
        Entry(
            path: "locale list",
            examples: [
                Example("ucube --device sim locale list", "The locales the simulator supports"),
                Example("ucube --json locale list", "The default device's locales as JSON"),
            ],
            seeAlso: ["locale get", "locale set"]),
        Entry(
            path: "rpc",
            examples: [
                Example("ucube rpc list", "Every terminal command with its id and security modes"),
                Example("ucube --device sim rpc get-info C1 C4", "Send GetInfo for two tags and decode the answer"),
                Example("ucube --device sim --trace rpc rtc-get", "Read the clock, every frame in hex on stderr"),
            ],
            seeAlso: ["decode", "shell", "docs/protocol.md"]),
        Entry(
            path: "rpc list",
            examples: [
                Example("ucube rpc list", "The command catalogue: id, name, security modes, summary"),
                Example("ucube --json rpc list", "The same as JSON, with the states that accept each command"),
            ],
            seeAlso: ["rpc raw", "docs/protocol.md"]),
        Entry(
            path: "rpc raw",
            examples: [
                Example("ucube --device sim rpc raw 5001 \"C1 C4 D1\"", "GetInfo by hand: its id and its payload"),
                Example("ucube --device sim rpc raw get-status", "A command by its name, with an empty payload"),
                Example(
                    "ucube rpc raw 5026 9F27 --in-mode signed-not-checked",
                    "Wrap the payload with crypto header 7F and a zero MAC"),
            ],
            seeAlso: ["rpc list", "decode", "docs/protocol.md"]),
        Entry(
            path: "rpc cancel-all",
            examples: [
                Example("ucube --device sim rpc cancel-all", "End whatever the terminal waits for (a card, a key)"),
                Example("ucube --device sim --trace rpc cancel-all", "The same, with both frames in hex on stderr"),
            ],
            seeAlso: ["cancel", "rpc get-status"]),
        Entry(
            path: "rpc rtc-get",
            examples: [
                Example("ucube --device sim rpc rtc-get", "Read the terminal's real-time clock"),
                Example("ucube --device sim --json rpc rtc-get", "The same as JSON"),
            ],
            seeAlso: ["rpc rtc-set", "diagnose"]),
        Entry(
            path: "rpc rtc-set",
            examples: [
                Example("ucube --device sim rpc rtc-set", "Set the terminal's clock to now (UTC)"),
                Example(
                    "ucube --device sim rpc rtc-set 2026-11-22T10:00:00", "Set it to 10:00 UTC on 22 November 2026"),
            ],
            seeAlso: ["rpc rtc-get"]),
        Entry(
            path: "rpc repeat-last-message",
            examples: [
                Example("ucube --device sim rpc repeat-last-message", "Ask the terminal to send its last answer again"),
                Example("ucube --trace rpc repeat-last-message", "The same, the answer's SEQ and command id in hex"),
            ],
            seeAlso: ["rpc get-status", "docs/protocol.md"]),
        Entry(
            path: "rpc get-status",
            examples: [
                Example("ucube --device sim rpc get-status", "Whether the terminal is busy with a process"),
                Example("ucube --device sim --json rpc get-status", "The same as JSON"),
            ],
            seeAlso: ["rpc cancel-all", "info"]),
        Entry(
            path: "rpc get-info",
            examples: [
                Example("ucube --device sim rpc get-info", "The standard GetInfo tags, decoded"),
                Example("ucube --device sim rpc get-info C1 C4 D1", "Only the serial number, state and SVPP version"),
                Example("ucube --device sim --json rpc get-info", "The standard tags as JSON"),
            ],
            seeAlso: ["info", "decode"]),
        Entry(
            path: "rpc set-info-prod",
            examples: [
                Example("ucube --trace rpc set-info-prod", "Send it with no payload; the frames in hex on stderr"),
                Example("ucube rpc set-info-prod \"C6 01 3C\"", "Send these bytes as the payload (factory layout)"),
            ],
            seeAlso: ["rpc set-info-field"]),
        Entry(
            path: "rpc set-info-field",
            examples: [
                Example(
                    "ucube --device sim rpc set-info-field --power-off-timeout 120", "Switch off after 2 idle minutes"),
                Example(
                    "ucube --device sim rpc set-info-field --locale fr --speed-mode quick",
                    "French merchant interface, and the quick BLE speed mode"),
                Example("ucube rpc set-info-field --tlv C6013C", "Field C6 (power-off timeout, 60 s) as BER-TLV"),
            ],
            seeAlso: ["locale set", "rpc get-info"]),
        Entry(
            path: "rpc wait-card",
            examples: [
                Example("ucube --device sim rpc wait-card", "Wait up to 30 s for a chip card"),
                Example(
                    "ucube --device sim rpc wait-card --readers icc,nfc --timeout 60",
                    "Wait a minute on the chip and contactless readers"),
            ],
            seeAlso: ["rpc wait-card-removal", "read-card"]),
        Entry(
            path: "rpc wait-card-removal",
            examples: [
                Example("ucube --device sim rpc wait-card-removal", "Power the card off and wait 30 s for its removal"),
                Example("ucube rpc wait-card-removal --timeout 10", "Wait ten seconds only"),
            ],
            seeAlso: ["rpc wait-card", "rpc card-power-off"]),
        Entry(
            path: "rpc card-send-apdu",
            examples: [
                Example("ucube --trace rpc card-send-apdu 00A4040007A0000000031010", "Send these bytes as the payload"),
                Example(
                    "ucube --json rpc card-send-apdu \"00 B2 01 0C 00\"", "Spaces inside quotes; the answer as JSON"),
            ],
            seeAlso: ["rpc wait-card", "decode"]),
        Entry(
            path: "rpc card-power-off",
            examples: [
                Example("ucube rpc card-power-off", "Power the card off (an empty payload)"),
                Example("ucube --trace rpc card-power-off", "The same, with both frames in hex on stderr"),
            ],
            seeAlso: ["rpc wait-card-removal"]),
        Entry(
            path: "rpc magstripe-read",
            examples: [
                Example("ucube rpc magstripe-read", "Read a swiped card (an empty payload; track data is masked)"),
                Example("ucube --trace rpc magstripe-read", "The same, with the frames (masked) on stderr"),
            ],
            seeAlso: ["read-card", "rpc wait-card"]),
        Entry(
            path: "rpc get-secured-tag",
            examples: [
                Example(
                    "ucube --device sim rpc get-secured-tag 5A 57",
                    "After rpc enter-secure-session: PAN and track 2, as an SRED blob"),
                Example("ucube rpc get-secured-tag applicationPAN", "A tag by its dictionary name"),
            ],
            seeAlso: ["rpc get-plain-tag", "decode"]),
        Entry(
            path: "rpc get-plain-tag",
            examples: [
                Example(
                    "ucube --device sim rpc get-plain-tag 9F27 95",
                    "After a card read in a secure session: the CID and the TVR"),
                Example("ucube rpc get-plain-tag cryptogramInformationData", "A tag by its dictionary name"),
            ],
            seeAlso: ["rpc get-secured-tag", "decode"]),
        Entry(
            path: "rpc display-message",
            examples: [
                Example(
                    "ucube --device sim rpc display-message \"Hello world\"", "Show it centred, and answer at once"),
                Example(
                    "ucube rpc display-message Welcome --timeout 5 --y 20",
                    "Show it for 5 s, 20 pixels from the top"),
            ],
            seeAlso: ["display", "rpc display-list-box"]),
        Entry(
            path: "rpc display-list-box",
            examples: [
                Example(
                    "ucube --device sim rpc display-list-box Coffee Tea --title Drink", "A list; the answer's item"),
                Example("ucube rpc display-list-box Yes No --timeout 20", "Wait at most 20 s for a choice"),
            ],
            seeAlso: ["choose", "rpc display-message"]),
        Entry(
            path: "rpc display-message-ki",
            examples: [
                Example("ucube --trace rpc display-message-ki", "Send it with no payload; the frames on stderr"),
                Example("ucube rpc display-message-ki \"01 00 1E\"", "Send these bytes as the payload (signed prompt)"),
            ],
            seeAlso: ["rpc display-message-ki-custom", "display"]),
        Entry(
            path: "rpc display-message-ki-custom",
            examples: [
                Example("ucube --trace rpc display-message-ki-custom", "Send it with no payload; the frames on stderr"),
                Example("ucube rpc display-message-ki-custom 0048656C6C6F", "Send these bytes as the payload"),
            ],
            seeAlso: ["rpc display-message-ki", "display"]),
        Entry(
            path: "rpc power-off",
            examples: [
                Example("ucube rpc power-off", "Switch the default terminal off"),
                Example("ucube --device \"YT-Touch 0001\" rpc power-off", "Switch off a terminal remembered by name"),
            ],
            seeAlso: ["connect", "rpc set-info-field"]),
        Entry(
            path: "rpc enter-secure-session",
            examples: [
                Example("ucube --device sim rpc enter-secure-session", "Start a secure session; prints the SRED KSN"),
                Example("ucube --device sim --trace rpc enter-secure-session", "The same, with the frames on stderr"),
            ],
            seeAlso: ["rpc exit-secure-session", "docs/protocol.md"]),
        Entry(
            path: "rpc exit-secure-session",
            examples: [
                Example("ucube --device sim rpc exit-secure-session", "End the secure session"),
                Example("ucube --device sim --json rpc exit-secure-session", "The same, the answer as JSON"),
            ],
            seeAlso: ["rpc enter-secure-session", "cancel"]),
        Entry(
            path: "rpc get-key-info",
            examples: [
                Example("ucube rpc get-key-info", "Describe the loaded keys (an empty payload)"),
                Example("ucube --json rpc get-key-info", "The same, the answer as JSON"),
            ],
            seeAlso: ["rpc load-key", "rpc export-public-key"]),
        Entry(
            path: "rpc export-public-key",
            examples: [
                Example("ucube rpc export-public-key", "Export the key-encryption public key (an empty payload)"),
                Example("ucube --json rpc export-public-key", "The same, the answer as JSON"),
            ],
            seeAlso: ["rpc get-key-info", "rpc import-public-key-cert"]),
        Entry(
            path: "rpc import-public-key-cert",
            examples: [
                Example("ucube rpc import-public-key-cert 7F2181B0", "Send these bytes as the payload, as they are"),
                Example("ucube --trace rpc import-public-key-cert 3082", "Send these bytes; the frames on stderr"),
            ],
            seeAlso: ["rpc import-public-key-perso-cert", "rpc export-public-key"]),
        Entry(
            path: "rpc import-public-key-perso-cert",
            examples: [
                Example("ucube rpc import-public-key-perso-cert 7F2181B0", "Send these bytes as the payload"),
                Example(
                    "ucube --trace rpc import-public-key-perso-cert 3082", "Send these bytes; the frames on stderr"),
            ],
            seeAlso: ["rpc import-public-key-cert", "rpc load-key"]),
        Entry(
            path: "rpc install-for-load-key",
            examples: [
                Example("ucube --device sim rpc install-for-load-key", "The terminal's certificate chain for the TMS"),
                Example("ucube --device sim --json rpc install-for-load-key", "The same as JSON"),
            ],
            seeAlso: ["mdm-register", "docs/tms.md"]),
        Entry(
            path: "rpc load-key",
            examples: [
                Example("ucube rpc load-key \"44 30 31 31 32\"", "Send a key block's bytes, spaces inside quotes"),
                Example("ucube --trace rpc load-key 4430313132", "Send these bytes; the frames on stderr"),
            ],
            seeAlso: ["rpc get-key-info"]),
        Entry(
            path: "rpc install-for-load",
            examples: [
                Example(
                    "ucube rpc install-for-load --method plain --signature 30440220",
                    "Announce a plain binary, with its signature in hex"),
                Example(
                    "ucube rpc install-for-load --method dynamic --signature 30 --session-key 0A",
                    "Announce one protected by a ciphered session key"),
            ],
            seeAlso: ["rpc load", "mdm-update", "docs/tms.md"]),
        Entry(
            path: "rpc load",
            examples: [
                Example("ucube rpc load --block 0102030405", "Send one block of the binary announced"),
                Example(
                    "ucube rpc load --block 0A0B0C --last", "Send its last block: the terminal checks the signature"),
            ],
            seeAlso: ["rpc install-for-load", "mdm-update"]),
        Entry(
            path: "rpc online-pin",
            examples: [
                Example("ucube --trace rpc online-pin", "Send it with no payload; the frames on stderr"),
                Example("ucube rpc online-pin \"DF30 01 04\"", "Send these bytes as the payload"),
            ],
            seeAlso: ["rpc simplified-online-pin"]),
        Entry(
            path: "rpc simplified-online-pin",
            examples: [
                Example(
                    "ucube --device sim rpc simplified-online-pin --amount 12.50 --currency EUR",
                    "In a secure session: a PIN for €12.50, its KSN and encrypted block"),
                Example(
                    "ucube rpc simplified-online-pin --amount 20 --currency 978 --max-digits 6",
                    "At most six digits, the currency by its number"),
            ],
            seeAlso: ["pay", "rpc online-pin"]),
        Entry(
            path: "rpc bank-parameters-download",
            examples: [
                Example(
                    "ucube rpc bank-parameters-download \"01 02 03\"", "Send these bytes as the payload, as they are"),
                Example("ucube --trace rpc bank-parameters-download 0102", "Send these bytes; the frames on stderr"),
            ],
            seeAlso: ["rpc bank-parameters-get"]),
        Entry(
            path: "rpc bank-parameters-get",
            examples: [
                Example("ucube rpc bank-parameters-get", "Read the EMV bank parameters (an empty payload)"),
                Example("ucube --json rpc bank-parameters-get", "The same, the answer as JSON"),
            ],
            seeAlso: ["rpc bank-parameters-download"]),
        Entry(
            path: "rpc build-candidate-list",
            examples: [
                Example(
                    "ucube --device sim rpc build-candidate-list",
                    "In a transaction, a chip card inserted: the card's applications"),
                Example("ucube rpc build-candidate-list --max-applications 4", "At most four of them"),
            ],
            seeAlso: ["rpc transaction-init", "pay"]),
        Entry(
            path: "rpc transaction-init",
            examples: [
                Example(
                    "ucube rpc transaction-init --aid A0000000031010 --amount 12.50 --currency EUR",
                    "Select the Visa application for €12.50: GPO and read records"),
                Example(
                    "ucube rpc transaction-init --aid A0000000041010 --amount 5 --currency 978",
                    "Mastercard, €5, the currency by its ISO 4217 number"),
            ],
            seeAlso: ["rpc build-candidate-list", "rpc transaction-process", "pay"]),
        Entry(
            path: "rpc transaction-process",
            examples: [
                Example(
                    "ucube rpc transaction-process --date-time now --sequence-counter 1",
                    "Risk management and the first GENERATE AC, dated now"),
                Example(
                    "ucube rpc transaction-process --tvr 0000008000 --tags 9F27,95",
                    "With a TVR of our own; the answer carries 9F27 and 95"),
            ],
            seeAlso: ["rpc transaction-init", "rpc transaction-finalisation", "pay"]),
        Entry(
            path: "rpc transaction-finalisation",
            examples: [
                Example("ucube rpc transaction-finalisation --arc 00", "The issuer approved: the second GENERATE AC"),
                Example(
                    "ucube rpc transaction-finalisation --arc 05 --tags 9F27",
                    "The issuer declined; the answer carries 9F27"),
            ],
            seeAlso: ["rpc transaction-process", "pay", "docs/authorization.md"]),
        Entry(
            path: "rpc nfc-start",
            examples: [
                Example(
                    "ucube --device sim rpc nfc-start --amount 12.50 --currency EUR",
                    "After rpc enter-secure-session: wait for a card for €12.50"),
                Example(
                    "ucube rpc nfc-start --amount 5 --currency EUR --readers nfc --timeout 60",
                    "Contactless only, a minute to present the card"),
            ],
            seeAlso: ["rpc nfc-complete", "read-card", "pay"]),
        Entry(
            path: "rpc nfc-complete",
            examples: [
                Example("ucube rpc nfc-complete --arc 00", "Complete the contactless payment: approved"),
                Example("ucube rpc nfc-complete", "Complete it as a technical issue (ARC 6060)"),
            ],
            seeAlso: ["rpc nfc-start", "pay"]),
        Entry(
            path: "decode",
            examples: [
                Example("ucube decode 02 00 02 01 50 20 FF FE DF C2 03", "A frame: WaitCard's answer, status -2"),
                Example("ucube decode 95 05 8000800000 9F27 01 80", "EMV fields, each explained bit by bit"),
                Example("ucube decode pay.rec", "Every frame of a recording (--record) or a --trace dump"),
            ],
            seeAlso: ["rpc", "docs/recording.md", "docs/protocol.md"]),
        Entry(
            path: "simulate",
            examples: [
                Example("ucube simulate --list-cards", "The simulated cards and the status each gives"),
                Example(
                    "ucube simulate --listen 127.0.0.1:5000", "Serve the terminal for --device tcp://127.0.0.1:5000"),
                Example(
                    "ucube simulate --tms 127.0.0.1:8443 --host 127.0.0.1:8444",
                    "Serve a TMS and an authorisation host over HTTPS"),
            ],
            seeAlso: ["test", "docs/host-simulator.md", "docs/tms.md", "docs/vendor-apps.md", "docs/fleet.md"]),
        Entry(
            path: "serve",
            examples: [
                Example("ucube serve --device sim", "The payment API and the demo page on http://127.0.0.1:8686/"),
                Example(
                    "ucube serve --device sim --listen 0.0.0.0:8686 --pair",
                    "Serve the LAN: show a pairing code on the terminal for the POS's token"),
                Example("ucube serve --listen 127.0.0.1:0", "Every remembered terminal, on any free port"),
            ],
            seeAlso: ["pay", "cancel", "history", "docs/serve.md"]),
        Entry(
            path: "sim",
            examples: [
                Example("ucube sim card visa-contactless", "The next card wait of the running simulator is a tap"),
                Example("ucube sim fault drop@1", "Drop the app's link at the next frame"),
                Example("ucube sim --all battery 5", "Every simulator of a fleet reports a low battery"),
            ],
            seeAlso: ["simulate", "test", "docs/vendor-apps.md"]),
        Entry(
            path: "test",
            examples: [
                Example("ucube --device sim test Suites/payments.json", "Run the shipped suite: TAP 13 on stdout"),
                Example(
                    "ucube --device sim test Suites/payments.json --junit r.xml",
                    "The same, and a JUnit report in r.xml"),
                Example(
                    "ucube --device sim test Suites/payments.json --case \"contact online PIN\"",
                    "One case of the suite"),
            ],
            seeAlso: ["simulate", "pay", "docs/suites.md", "docs/fleet.md"]),
        Entry(
            path: "shell",
            examples: [
                Example("ucube shell", "Commands at a prompt, on one open link (or plain `ucube`)"),
                Example("ucube --device sim shell --script check.ucube", "Run a script; the first failure stops it"),
                Example(
                    "ucube shell --script check.ucube --devices devices.txt --max-failures 2",
                    "Run it on every terminal of a file"),
            ],
            seeAlso: ["rpc", "pay", "docs/fleet.md"]),
        Entry(
            path: "scan",
            examples: [
                Example("ucube scan", "The uCube terminals in Bluetooth range, for ten seconds"),
                Example("ucube scan --timeout 30 --name touch", "Scan 30 s for names that contain touch"),
                Example("ucube --json scan --all", "Every Bluetooth device seen, as JSON"),
            ],
            seeAlso: ["connect", "diagnose"]),
        Entry(
            path: "connect",
            examples: [
                Example("ucube connect \"YT-Touch 0001\"", "Connect, show it and remember it as the default"),
                Example("ucube connect --list", "The remembered terminals (* marks the default)"),
                Example("ucube connect --forget \"YT-Touch 0001\"", "Forget a remembered terminal"),
            ],
            seeAlso: ["scan", "diagnose", "docs/authorization.md"]),
        Entry(
            path: "mdm-register",
            examples: [
                Example(
                    "ucube --device sim mdm-register", "Register with the TMS of $UCUBE_TMS_URL; keep the identity"),
                Example("ucube --device sim mdm-register --status", "Whether it is registered (no server contacted)"),
                Example("ucube mdm-register --devices devices.txt --parallel 4", "Every terminal of a file, 4 at once"),
            ],
            seeAlso: ["mdm-update", "send-logs", "docs/tms.md", "docs/fleet.md"]),
        Entry(
            path: "mdm-update",
            examples: [
                Example("ucube --device sim mdm-update --plan", "What the TMS would install; changes nothing"),
                Example("ucube --device sim mdm-update --all", "Install every newer item, optional ones too"),
                Example(
                    "ucube mdm-update --devices devices.txt --json --junit update.xml",
                    "Update a fleet: JSON lines, and a JUnit report"),
            ],
            seeAlso: ["mdm-register", "fleet-merge", "docs/tms.md", "docs/fleet.md"]),
        Entry(
            path: "fleet-merge",
            examples: [
                Example("ucube fleet-merge shard-1.jsonl shard-2.jsonl", "One summary and exit code for two shards"),
                Example(
                    "ucube fleet-merge --junit fleet.xml shard-1.jsonl shard-2.jsonl",
                    "The same, and one JUnit report"),
            ],
            seeAlso: ["info", "mdm-update", "docs/fleet.md"]),
        Entry(
            path: "send-logs",
            examples: [
                Example("ucube --device sim send-logs", "Zip the logs, masked, and send them to the TMS"),
                Example("ucube send-logs --output logs.zip", "Write the bundle to logs.zip instead"),
            ],
            seeAlso: ["mdm-register", "diagnose", "docs/tms.md"]),
        Entry(
            path: "diagnose",
            examples: [
                Example("ucube diagnose", "Check the default device, the TMS, the journal and the disk"),
                Example("ucube --device sim diagnose --json", "The simulator's findings as JSON"),
                Example("ucube --device tcp://127.0.0.1:5000 diagnose", "Check a terminal served over TCP"),
            ],
            seeAlso: ["scan", "connect", "info", "docs/fleet.md"]),
    ]
}
