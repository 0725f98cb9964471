/// A misbehaviour the simulator plays on the next requests to an endpoint, so that a client can be tested against a
/// failing TMS (`TMSSimulator.setFault(_:for:times:)`).
public enum TMSFault: Sendable, Hashable {
    /// Answer this HTTP status (e.g. 500) with a small JSON error body, before any other check.
    case status(Int)
    /// Wait this long, then answer normally (a client read timeout shorter than it fires).
    case delay(Duration)
    /// Answer 200 `application/json` with a body that is not valid JSON (a config cut mid-array).
    case malformedJSON
    /// Answer the normal status and headers, announce the full `Content-Length`, send half the body and close.
    case truncatedBody
    /// Binary: close the connection after the signature and `TMSSimulatorChoices.blocksBeforeDrop` blocks.
    /// Other endpoints: close without answering.
    case dropConnection
}
