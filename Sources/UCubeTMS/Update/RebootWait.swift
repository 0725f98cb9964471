import UCubeLink
import UCubeProtocol

/// After an SVPP firmware load the terminal reboots (spec §9, §10.6): wait for the link to drop, then reconnect with
/// backoff until GetInfo answers, up to a deadline.
///
/// PROJECT CHOICEs (spec §9 gives the SDK's 5 s polling for 60 s only): wait up to `dropTimeout` (10 s) for the old
/// link to drop (then close it ourselves: the terminal may reboot without the host seeing the link go); retry the
/// reconnect after `initialDelay` (0.5 s) doubling up to `maxDelay` (5 s, the SDK's poll period); give up after
/// `deadline` (120 s, twice the SDK's 60 s) counted from the start of the wait.
package struct RebootWait: Sendable {
    package var dropTimeout: Duration
    package var initialDelay: Duration
    package var maxDelay: Duration
    package var deadline: Duration
    /// GetInfo deadline per attempt.
    package var probeTimeout: Duration
    package var clock: any Clock<Duration>

    package init(
        dropTimeout: Duration = .seconds(10), initialDelay: Duration = .milliseconds(500),
        maxDelay: Duration = .seconds(5),
        deadline: Duration = .seconds(120), probeTimeout: Duration = .seconds(5),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.dropTimeout = dropTimeout
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.deadline = deadline
        self.probeTimeout = probeTimeout
        self.clock = clock
    }

    /// Waits for `client`'s link to drop, then calls `reconnect` until a client answers GetInfo; returns that client
    /// with the terminal's fresh GetInfo (its new versions). Throws `.rebootTimeout` past the deadline, `.cancelled`
    /// when the task is cancelled.
    package func wait(
        after client: RPCClient,
        reconnect: @Sendable () async throws -> RPCClient
    ) async throws(UpdateError) -> (client: RPCClient, info: DeviceInfo) {
        let elapsed = Self.stopwatch(clock)
        while await client.isConnected && elapsed() < dropTimeout {
            try await sleep(.milliseconds(20))
        }
        await client.close()
        var delay = initialDelay
        var lastFailure = "no attempt yet"
        while elapsed() < deadline {
            do {
                let candidate = try await reconnect()
                do {
                    let reply = try await candidate.send(GetInfo(), timeout: probeTimeout)
                    if let info = reply.response { return (candidate, info) }
                    lastFailure = "GetInfo answered \(reply.status)"
                } catch {
                    lastFailure = "GetInfo: \(error.reason)"
                }
                await candidate.close()
            } catch {
                lastFailure = "reconnect: \(error)"
            }
            if Task.isCancelled { throw UpdateError(.cancelled, "cancelled while waiting for the terminal to reboot") }
            let left = deadline - elapsed()
            guard left > .zero else { break }
            try await sleep(min(delay, left))
            delay = min(delay * 2, maxDelay)
        }
        throw UpdateError(
            .rebootTimeout,
            "the terminal did not answer within \(deadline) after its reboot (last attempt: \(lastFailure)); "
                + "check it is powered and in range, then run the update again")
    }

    private func sleep(_ duration: Duration) async throws(UpdateError) {
        do {
            try await clock.sleep(for: duration)
        } catch {
            throw UpdateError(.cancelled, "cancelled while waiting for the terminal to reboot")
        }
    }

    private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }
}
