import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import UCubeCrypto
import UCubeProtocol
import UCubeSupport
import UCubeTMSSimulator

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An authorisation host for tests and `ucube simulate --host` (docs/host-simulator.md): the HTTPS form of ucube's
/// authorisation hook (docs/authorization.md), with a CA of its own in the state directory. It deciphers the SRED
/// data with the test BDK, checks the PAN and the ARQC, answers with a real ARPC, decides by amount rules
/// (`HostAmountRule`), acknowledges and counts reversals, logs every document masked, and plays faults. The decisions
/// are `HostAuthorizer`'s pure functions; this actor keeps the state (faults, counters, log) and does the I/O.
///
/// ```swift
/// let host = HostSimulator()
/// let port = try await host.start(port: 0, stateDirectory: state)
/// // clients trust HostSimulator.caCertificateURL(stateDirectory: state)  (= <state>/host-ca.pem)
/// await host.addFault(.status(500), times: 2)
/// await host.stop()
/// ```
package actor HostSimulator {
    private struct Running {
        let listener: HTTPSListener
        /// The `--host-log` file, open for appending; -1 when there is none.
        let logDescriptor: Int32
    }

    private var running: Running?
    private let bdk: [UInt8]
    private let issuerMasterKey: [UInt8]
    /// How long a withheld answer keeps its connection open at most.
    let holdLimit: Duration
    private var faults: [(fault: HostFault, remaining: Int)] = []
    private var entries: [HostLogEntry] = []
    private var reversals: [String: Int] = [:]
    private var authorizations = 0

    /// - Parameters:
    ///   - bdk: the BDK of the terminals' SRED keys (default: the simulator's test BDK).
    ///   - issuerMasterKey: the IMK of the cards' cryptograms (default: the simulator's test IMK).
    ///   - holdLimit: how long an answer withheld (amount rule `.12`, fault `timeout`) keeps the connection open at
    ///     most (tests make it short).
    package init(
        bdk: [UInt8] = CryptoChoices.testBDK, issuerMasterKey: [UInt8] = CryptoChoices.testIssuerMasterKey,
        holdLimit: Duration = HostSimulatorChoices.holdLimit
    ) {
        self.bdk = bdk
        self.issuerMasterKey = issuerMasterKey
        self.holdLimit = holdLimit
    }

    /// Where the CA certificate clients must trust is written: `<stateDirectory>/host-ca.pem`.
    package nonisolated static func caCertificateURL(stateDirectory: URL) -> URL {
        stateDirectory.appendingPathComponent(HostSimulatorChoices.certificateAuthority.certificateFile)
    }

    /// Loads or creates the CA in `stateDirectory`, issues a server certificate, opens `logFile` for appending
    /// (created 0600 when missing) and listens.
    /// - Returns: the bound port (pass `port: 0` for an ephemeral one).
    package func start(
        host: String = "127.0.0.1", port: Int = 0, stateDirectory: URL, logFile: URL? = nil
    ) async throws(TMSSimulatorError) -> Int {
        guard running == nil else { throw TMSSimulatorError(.invalidArgument, "the host simulator is already running") }
        let prepared: (TMSCertificateAuthority.Identity, Int32)
        do {
            prepared = try await NIOThreadPool.singleton.runIfActive {
                let authority = try TMSCertificateAuthority.loadOrCreate(
                    in: stateDirectory, names: HostSimulatorChoices.certificateAuthority)
                let identity = try authority.issueServerIdentity(commonName: HostSimulatorChoices.serverCommonName)
                guard let logFile else { return (identity, -1) }
                let fd = open(logFile.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
                guard fd >= 0 else {
                    throw TMSSimulatorError(
                        .invalidArgument, "cannot open the host log \(logFile.path): \(ErrorNumber.text(errno))")
                }
                return (identity, fd)
            }
        } catch let error as TMSSimulatorError {
            throw error
        } catch {
            throw TMSSimulatorError(.stateDirectory, "cannot prepare the host simulator: \(error)")
        }
        let listener: HTTPSListener
        do {
            listener = try await HTTPSListener.start(
                host: host, port: port, identity: prepared.0, clientTrust: nil,
                idleTimeout: holdLimit.seconds + HostSimulatorChoices.idleGrace
            ) { [self] connection in await HostConnection(simulator: self, holdLimit: holdLimit).serve(connection) }
        } catch {
            if prepared.1 >= 0 { close(prepared.1) }
            throw error
        }
        running = Running(listener: listener, logDescriptor: prepared.1)
        return listener.port
    }

    /// Closes the listening socket and every connection (a held one too), waits for them to end, closes the log.
    package func stop() async {
        guard let running else { return }
        self.running = nil
        await running.listener.stop()
        if running.logDescriptor >= 0 { close(running.logDescriptor) }
    }

    // MARK: Faults and inspection

    /// Plays `fault` on the next `times` requests it acts on (`HostFault.acts(on:)`), after the faults already set.
    package func addFault(_ fault: HostFault, times: Int = 1) {
        if times > 0 { faults.append((fault, times)) }
    }

    package func clearFaults() { faults = [] }

    /// Every document received since start, in order, masked.
    package func log() -> [HostLogEntry] { entries }

    /// How many reversals of `requestID` the host has had.
    package func reversalCount(requestID: String) -> Int { reversals[requestID] ?? 0 }

    // MARK: Answering (called by HostConnection)

    /// The answer to one request body (nil: it was over `HostSimulatorChoices.maximumBody`).
    func answer(_ body: [UInt8]?) -> HostReply {
        guard let body else {
            return refuse(.payloadTooLarge, "the body exceeds \(HostSimulatorChoices.maximumBody) bytes")
        }
        let request: HostRequest
        do {
            request = try HostRequest.parse(body)
        } catch {
            return refuse(.badRequest, error.reason)
        }
        switch request {
        case .authorization(let authorization): return authorize(authorization)
        case .reversal(let reversal): return reverse(reversal)
        }
    }

    private func authorize(_ request: HostRequest.Authorization) -> HostReply {
        let card = HostAuthorizer.checkCard(request, bdk: bdk, issuerMasterKey: issuerMasterKey)
        let decision = HostAuthorizer.decide(request, card: card)
        authorizations += 1
        let reference = HostSimulatorChoices.referencePrefix + String(authorizations).leftPadded(to: 6)
        var entry = newEntry(.authorization)
        entry.requestId = request.requestID
        entry.amount = request.amount
        entry.currency = request.currency
        entry.entryMode = request.entryMode
        entry.maskedPan = card.maskedPAN ?? HostLogEntry.shown(maskedPAN: request.maskedPAN)
        entry.arqc = card.arqc.map { $0.isValid ? "valid" : "invalid" }
        entry.message = decision.message
        var issuerData = decision.issuerAuthenticationData
        let fault = takeFault(for: .authorization(hasIssuerData: issuerData != nil))
        entry.fault = fault?.word
        var reply: HostReply
        switch decision.outcome {
        case .noAnswer:
            reply = .hold
        case .answer(let verdict, let code):
            entry.decision = verdict.rawValue
            entry.responseCode = code
            entry.hostReference = reference
            if fault == .wrongARPC, var data = issuerData {
                data[0] ^= 0x01  // one bit of the ARPC: the card's check fails
                issuerData = data
            }
            reply = .full(
                .ok,
                Self.json([
                    "decision": verdict.rawValue, "responseCode": code, "hostReference": reference,
                    "message": decision.message,
                    "issuerAuthenticationData": issuerData.map { Hex.encode($0) },
                ]))
        }
        reply = Self.apply(fault, to: reply)
        return record(entry, reply)
    }

    private func reverse(_ request: HostRequest.Reversal) -> HostReply {
        let count = (reversals[request.requestID] ?? 0) + 1
        reversals[request.requestID] = count
        var entry = newEntry(.reversal)
        entry.requestId = request.requestID
        entry.hostReference = request.hostReference
        entry.reason = request.reason
        entry.reversalCount = count
        let fault = takeFault(for: .reversal)
        entry.fault = fault?.word
        let acknowledged = fault != .noAcknowledgement
        let reply = Self.apply(fault, to: .full(.ok, Self.json(["acknowledged": acknowledged])))
        if case .full(.ok, _) = reply, fault != .malformed { entry.acknowledged = acknowledged }
        return record(entry, reply)
    }

    /// 400 or 413, logged as an invalid document.
    private func refuse(_ status: HTTPResponseStatus, _ message: String) -> HostReply {
        var entry = newEntry(.invalid)
        entry.message = message
        return record(entry, .full(status, Self.json(["status": "error", "message": message])))
    }

    /// What `fault` makes of `reply`: an error status, a body that is not an answer, or none at all.
    private static func apply(_ fault: HostFault?, to reply: HostReply) -> HostReply {
        switch fault {
        case .status(let code)?:
            .full(HTTPResponseStatus(statusCode: code), json(["status": "error", "message": "simulated fault"]))
        case .malformed?: .full(.ok, HostSimulatorChoices.malformedBody)
        case .timeout?: .hold
        case .wrongARPC?, .noAcknowledgement?, nil: reply
        }
    }

    /// The first fault that acts on `target`, counted down.
    private func takeFault(for target: HostFault.Target) -> HostFault? {
        guard let index = faults.firstIndex(where: { $0.fault.acts(on: target) }) else { return nil }
        let fault = faults[index].fault
        faults[index].remaining -= 1
        if faults[index].remaining == 0 { faults.remove(at: index) }
        return fault
    }

    private func newEntry(_ type: HostLogEntry.Kind) -> HostLogEntry {
        HostLogEntry(sequence: entries.count + 1, now: Date(), type: type)
    }

    /// Keeps `entry` with the status `reply` sends, and appends it to the log file.
    private func record(_ entry: HostLogEntry, _ reply: HostReply) -> HostReply {
        var entry = entry
        if case .full(let status, _) = reply { entry.status = Int(status.code) }
        entries.append(entry)
        if let fd = running?.logDescriptor, fd >= 0 {
            // A line of a few hundred bytes to a local file, written here so that the file keeps the log's order.
            FileDescriptor.writeAll(fd, entry.line)
        }
        return reply
    }

    /// A JSON object, keys sorted, nil values left out.
    private static func json(_ object: [String: (any Sendable)?]) -> [UInt8] {
        let present = object.compactMapValues { $0 }
        let data = try? JSONSerialization.data(
            withJSONObject: present, options: [.sortedKeys, .withoutEscapingSlashes])
        return Array(data ?? Data("{}".utf8))
    }
}

/// What a connection does with a request, decided by the actor; `HostConnection` does it.
enum HostReply: Sendable {
    /// Answer this status with this JSON body.
    case full(HTTPResponseStatus, [UInt8])
    /// Answer nothing: hold the connection until the client closes it, or `HostSimulator.holdLimit`.
    case hold
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
