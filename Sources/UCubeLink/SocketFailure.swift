import NIOCore
import NIOPosix
import UCubeSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a failed connect or bind means, read from the errno NIO carries (`IOError.errnoCode`, each attempt of a
/// `NIOConnectionError`, its DNS errors) — never from NIO's text, which names its own functions
/// (`connect(descriptor:addr:size:)`). The TCP link, the TMS client and `ucube simulate` share it.
package enum SocketFailure: Equatable, Sendable {
    /// Nothing listens at the address (ECONNREFUSED).
    case refused
    /// No route to the host or its network (EHOSTUNREACH, ENETUNREACH).
    case unreachable
    /// The host name does not resolve.
    case hostNotFound
    /// The address to listen on is taken (EADDRINUSE).
    case addressInUse
    /// No connection within the connect timeout.
    case timedOut
    /// Another system error, by errno.
    case system(Int32)

    /// The failure `error` stands for, or nil when it is not a socket failure NIO reports.
    package init?(_ error: any Error) {
        switch error {
        case let error as IOError:
            self.init(errno: error.errnoCode)
        case let error as NIOConnectionError:
            // Each address tried failed; the first one that says more than "timed out" decides.
            let failures = error.connectionErrors.compactMap { SocketFailure($0.error) }
            if let failure = failures.first(where: { $0 != .timedOut }) ?? failures.first {
                self = failure
            } else if error.dnsAError != nil || error.dnsAAAAError != nil {
                self = .hostNotFound
            } else {
                return nil
            }
        case is SocketAddressError.UnknownHost:
            self = .hostNotFound
        case let error as ChannelError:
            guard case .connectTimeout = error else { return nil }
            self = .timedOut
        default:
            return nil
        }
    }

    package init(errno code: Int32) {
        switch code {
        case ECONNREFUSED: self = .refused
        case EHOSTUNREACH, ENETUNREACH: self = .unreachable
        case EADDRINUSE: self = .addressInUse
        case ETIMEDOUT: self = .timedOut
        default: self = .system(code)
        }
    }

    /// A few words for the failure, for a sentence such as "cannot connect to X: connection refused".
    package var summary: String {
        switch self {
        case .refused: "connection refused"
        case .unreachable: "no route to the host"
        case .hostNotFound: "the host name does not resolve"
        case .addressInUse: "the address is already in use"
        case .timedOut: "no answer within the connect timeout"
        case .system(let code): ErrorNumber.text(code).lowercased()
        }
    }
}

extension LinkError {
    /// The error for a failed TCP connect to `address` (`tcp://HOST:PORT`): a sentence and a hint by errno, NIO's
    /// text kept as the detail.
    package static func connecting(to address: String, host: String, port: Int, _ error: any Error) -> LinkError {
        let detail = "\(error)"
        switch SocketFailure(error) {
        case .refused:
            return LinkError(
                .connectionRefused, "cannot connect to \(address): connection refused",
                hint: "is `ucube simulate --listen \(host):\(port)` (or the terminal) running at that address?",
                detail: detail)
        case .unreachable:
            return LinkError(
                .hostUnreachable, "cannot connect to \(address): no route to \(host)",
                hint: "check the host in --device and this machine's network", detail: detail)
        case .hostNotFound:
            return LinkError(
                .hostNotFound, "cannot connect to \(address): the host name \(host) does not resolve",
                hint: "check the spelling of the host in --device", detail: detail)
        case .timedOut:
            return LinkError(
                .connectFailed, "cannot connect to \(address): no answer within the connect timeout",
                hint: "check the address and that the terminal is reachable from here", detail: detail)
        case let failure?:
            return LinkError(.connectFailed, "cannot connect to \(address): \(failure.summary)", detail: detail)
        case nil:
            return LinkError(.connectFailed, "cannot connect to \(address)", detail: detail)
        }
    }
}
