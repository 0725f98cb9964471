/// What the fleet options of one line say, as plain values (`CommonLines` reads them without ArgumentParser).
package struct FleetOptionValues: Sendable, Equatable {
    package var devices: String? = nil
    package var parallel: Int? = nil
    package var junit: String? = nil
    package var maxFailures: Int? = nil
    package var runFile: String? = nil
    package var restart = false
    package var shard: String? = nil
    package var shardHost: String? = nil

    package init(
        devices: String? = nil,
        parallel: Int? = nil,
        junit: String? = nil,
        maxFailures: Int? = nil,
        runFile: String? = nil,
        restart: Bool = false,
        shard: String? = nil,
        shardHost: String? = nil
    ) {
        self.devices = devices
        self.parallel = parallel
        self.junit = junit
        self.maxFailures = maxFailures
        self.runFile = runFile
        self.restart = restart
        self.shard = shard
        self.shardHost = shardHost
    }

    /// The shard `--shard` and `--shard-host` name, once validated.
    package var fleetShard: FleetShard? {
        guard let shard, let (index, count) = FleetShard.parse(shard) else { return nil }
        return FleetShard(index: index, count: count, host: shardHost)
    }

    /// Whether these options alone make a run a fleet run (a fleet of one, for its report and run file).
    package var asked: Bool {
        devices != nil || shard != nil || parallel != nil || junit != nil || maxFailures != nil || runFile != nil
            || restart
    }
}
