import Testing

@testable import UCubeProtocol

/// Helpers shared by the CommandTests* files.
enum CommandTestSupport {
    /// Hex fixture to bytes; a typo in a fixture is a test bug, so it traps.
    static func bytes(_ hex: String) -> [UInt8] {
        do {
            return try Hex.decode(hex)
        } catch {
            preconditionFailure("bad hex fixture \(hex): \(error)")
        }
    }

    /// The request read back from its own encoding.
    static func roundTrip<C: RPCCommand>(_ command: C) throws -> C {
        try C(payload: command.encodePayload())
    }

    /// The response read back from its own data.
    static func roundTrip<R: RPCResponse>(_ response: R, status: Status = .success) throws -> R {
        try R(status: status, data: response.encodeData())
    }

    /// The `CommandError` code a throwing call ends with; `nil` when it does not throw (any other error is recorded
    /// as an issue and also gives `nil`, so an `== .code` expectation fails).
    static func errorCode(
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> Void
    )
        -> CommandError.Code?
    {
        do {
            try body()
            return nil
        } catch let error as CommandError {
            return error.code
        } catch {
            Issue.record("expected a CommandError, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Every strict prefix of `data` must fail to decode as `R` with a `CommandError` (never a crash, never a value).
    static func expectEveryPrefixFails<R: RPCResponse>(
        _ type: R.Type,
        _ data: [UInt8],
        status: Status = .success,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for length in 0..<data.count {
            let prefix = Array(data.prefix(length))
            #expect(throws: CommandError.self, "prefix of \(length) bytes", sourceLocation: sourceLocation) {
                _ = try R(status: status, data: prefix)
            }
        }
    }

    /// Every strict prefix of `payload` must fail to decode as request `C`.
    static func expectEveryPayloadPrefixFails<C: RPCCommand>(
        _ type: C.Type,
        _ payload: [UInt8],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for length in 0..<payload.count {
            let prefix = Array(payload.prefix(length))
            #expect(throws: CommandError.self, "prefix of \(length) bytes", sourceLocation: sourceLocation) {
                _ = try C(payload: prefix)
            }
        }
    }

    /// A deterministic byte generator (64-bit LCG, Knuth's MMIX constants) for "must not crash" inputs.
    struct Bytes {
        private var state: UInt64

        init(seed: UInt64) { state = seed }

        mutating func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }

        mutating func array(count: Int) -> [UInt8] { (0..<count).map { _ in next() } }
    }
}
