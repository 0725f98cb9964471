import Foundation
import UCubeTMSSimulator

/// Every PROJECT CHOICE the authorisation host simulator makes, in one place (docs/host-simulator.md). No acquirer's
/// specification is followed: the API is ucube's own hook API (docs/authorization.md), and what is here is how *this*
/// host behaves where that page is silent.
///
/// Behaviour choices (code paths rather than values):
/// - Every path answers alike; `path` is the one `ucube simulate --host` prints. Only POST is served (else 405).
/// - The card is checked before the amount rules: SRED data that is missing or does not decipher under the test BDK,
///   or whose PAN is not the request's masked PAN, declines with `cardDataResponseCode`; an ARQC (9F26) that is
///   missing or does not verify declines with `cryptogramResponseCode`. A swiped card (`entryMode` `msr`) has no ARQC
///   to check, and gets no 91.
/// - Every answer that checked an ARQC carries 91 = ARPC method 1 ‖ ARC for its response code (declines included);
///   an `unable` answer carries none.
/// - Each request, reversal and refused document is recorded, masked (`HostLogEntry`).
package enum HostSimulatorChoices {
    /// The path printed in the URL (any path is served).
    package static let path = "/authorize"
    /// The largest request body: a request is a few kilobytes at most. A longer one is answered 413.
    package static let maximumBody = 64 * 1024
    /// How long an answer the host withholds (amount rule `.12`, fault `timeout`) keeps the connection open at most,
    /// when the client does not give up first; then the connection is closed without an answer.
    package static let holdLimit: Duration = .seconds(600)
    /// How much longer than the hold limit a connection with no traffic at all may stay open (the idle close must not
    /// cut a hold short).
    static let idleGrace: TimeInterval = 30

    /// 8A of a decline for card data that is missing, does not decipher, or is not the masked PAN's: 14, "invalid
    /// card number" (ISO 8583:1987 response codes).
    package static let cardDataResponseCode = "14"
    /// 8A of a decline for an ARQC that is missing or does not verify: 05, "do not honour", as issuers answer a
    /// cryptogram failure without saying why to the terminal; the answer's `"message"` and the host log say why.
    package static let cryptogramResponseCode = "05"

    /// `hostReference` = this prefix and a six-digit counter of the requests answered since start.
    static let referencePrefix = "HS"

    /// Fault `malformed`: an answer cut mid-document, which no client can read as an answer.
    static let malformedBody = Array(#"{"decision":"appr"#.utf8)

    /// The host's own CA, in the state directory beside the TMS simulator's (its own files and name).
    package static let certificateAuthority = TMSCertificateAuthority.Names(
        certificateFile: "host-ca.pem", keyFile: "host-ca-key.pem", commonName: "ucube host simulator CA")
    static let serverCommonName = "ucube host simulator"
}
