import FoundationEssentials
import Logging
import SecureSignals

#if canImport(Glibc)
    import Glibc
#endif

/// Turns the configuration file's settings into what the daemon runs on, one section at a time
/// (recipients, adapters, the socket and access, mediation): files read, paths made absolute
/// against the file's directory, names checked. Every error names its key.
struct ConfigurationResolver {
    let settings: DaemonConfiguration
    /// How errors name the configuration: its path, or "(embedded default)".
    let file: String
    let directory: URL
    let registry: AdapterRegistry
    /// The socket path `--socket` gave, absolute: it replaces the file's.
    var socketFlag: String? = nil

    /// What was found wrong so far: every section and entry is checked, and all of it reported.
    let problems = ConfigurationProblems()

    /// The configuration, or every error found in it.
    func resolve() throws -> ResolvedConfiguration {
        let recipients = try self.recipients()
        let adapters = try self.adapters(recipientNames: Set(settings.recipients.keys))
        let socket = try problems.collecting { try self.socket() }
        let stateDirectory = try problems.collecting { try self.stateDirectory() }
        let mediation = try mediation(signalAdapters: Set(settings.adapters.map(\.name)))
        let logLevel = try problems.collecting { try self.logLevel() }
        let metricsListener = try problems.collecting { try self.metricsListener() }
        let ssvKey = try problems.collecting { try self.ssvKey() }
        let limits = try problems.collecting { try self.limits() }
        let advertisingID = try problems.collecting { try self.advertisingID() }
        try problems.throwIfAny()
        guard let socket, let stateDirectory, let limits else { throw fail("", "a section failed without saying why") }
        return ResolvedConfiguration(
            source: file, socketPath: socket.path, socketOverridden: socketFlag != nil, socketMode: socket.mode,
            socketGroup: socket.group,
            access: AccessPolicy(
                ownUID: getuid(), socketGroup: socket.group, allowedUIDs: Set(settings.access.allowedUIDs),
                allowedGIDs: Set(settings.access.allowedGIDs), apps: AppRegistry(settings.apps, ownUID: getuid())),
            collector: CollectorConfiguration(
                adapters: adapters, recipients: recipients,
                requestTimeout: .milliseconds(settings.deadlines.requestTimeoutMilliseconds),
                maxSignalBytes: settings.deadlines.maxSignalBytes, stateDirectory: stateDirectory,
                ephemeralKeyPool: settings.performance.ephemeralKeyPool),
            mediation: mediation, limits: limits,
            trackers: settings.trackers.queueSettings(ssvMaxAge: .milliseconds(settings.ssv.maxAgeMilliseconds)),
            rewardRetention: settings.rewards.retention, ssvKey: ssvKey ?? nil,
            eventRetention: settings.events.retention,
            privacy: settings.privacy,
            logLevel: logLevel ?? nil,
            metricsListener: metricsListener ?? nil, advertisingID: advertisingID ?? nil,
            inspect: settings.inspect.limits,
            effective: effective(socketPath: socket.path, stateDirectory: stateDirectory.path))
    }

    func fail(_ path: String, _ reason: String) -> ConfigurationError {
        ConfigurationError(file: file, path: path, reason: reason)
    }

    /// `path`, absolute: a relative one resolves against the configuration file's directory.
    func absolute(_ path: String) -> String {
        ConfigurationPaths.absolute(path, in: directory)
    }

    /// `log_level`: one of swift-log's levels, or nil when not set.
    func logLevel() throws -> Logger.Level? {
        guard let name = settings.logLevel else { return nil }
        guard let level = Logger.Level(rawValue: name) else {
            throw fail(
                "log_level",
                "must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(name)\"")
        }
        return level
    }

    /// `state_directory`: absolute, and a directory the daemon can make (or has).
    func stateDirectory() throws -> URL {
        let path = settings.stateDirectory.map(absolute) ?? ResolvedConfiguration.defaultStateDirectory()
        if let reason = RuntimeDirectory.whyNotCreatable(path) { throw fail("state_directory", reason) }
        return URL(fileURLWithPath: path)
    }
}
