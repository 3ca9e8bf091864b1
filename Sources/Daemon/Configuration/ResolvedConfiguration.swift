import Adapters
import Consent
import FoundationEssentials
import Inspector
import Logging
import Mediation
import SecureSignals
import SharedTypes
import SignalCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// The configuration the daemon runs on: files read, paths resolved, names checked.
public struct ResolvedConfiguration: Sendable {
    public var source: String
    public var socketPath: String
    /// Whether `--socket` chose the socket's path, not the file.
    public var socketOverridden: Bool
    public var socketMode: mode_t
    public var socketGroup: gid_t?
    public var access: AccessPolicy
    public var collector: CollectorConfiguration
    public var mediation: MediationConfiguration
    public var limits: Limits
    /// `trackers`: how the tracker queue retries what it owes.
    public var trackers: TrackerQueue.Settings
    /// `rewards.retention_ms`: how long an earned reward is kept.
    public var rewardRetention: Duration
    /// `ssv`: the key that signs rewards' SSV callbacks, when set (read at start).
    public var ssvKey: SSVKey?
    /// `events`: what the event stream keeps for resuming.
    public var eventRetention: EventRetention
    /// `privacy`: the minimum TCF policy version and the longest age of consent.
    public var privacy: PrivacySettings
    /// `log_level`, when the file sets it (`--log-level` overrides it).
    public var logLevel: Logger.Level?
    /// `metrics.listen`: a loopback TCP listener for `/metrics` alone (read at start).
    public var metricsListener: MetricsListener?
    /// `advertising_id`: where the device's advertising id is read (read at start); nil: none.
    public var advertisingID: AdvertisingIDSettings?
    /// `inspect`: how many traces the inspector keeps, and about how many bytes.
    public var inspect: TraceRing.Limits
    /// The file's settings with every default written out and every path absolute: what
    /// `--print-config` prints.
    var effective: DaemonConfiguration

    /// The configuration file (or the embedded default when `file` is nil), with the socket path
    /// overridden when `socket` is given (`--socket`, relative to the working directory).
    public static func load(file: String?, socket: String?, registry: AdapterRegistry) throws -> ResolvedConfiguration {
        let flag = socket.map { $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0 }
        return try file.map { try load(file: $0, registry: registry, socketFlag: flag) }
            ?? embeddedDefault(registry: registry, socketFlag: flag)
    }

    /// Reads and checks a configuration file against the adapter types of `registry`.
    public static func load(file: String, registry: AdapterRegistry, socketFlag: String? = nil) throws
        -> ResolvedConfiguration
    {
        let url = URL(fileURLWithPath: file).standardizedFileURL
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ConfigurationError(file: file, path: "", reason: "cannot read: \(error.readableDescription)")
        }
        return try load(
            json: data, file: file, directory: url.deletingLastPathComponent(), registry: registry,
            socketFlag: socketFlag)
    }

    /// Reads and checks a configuration's JSON text, named `file` in errors; relative paths
    /// resolve against `directory`.
    static func load(
        json data: Data, file: String, directory: URL, registry: AdapterRegistry, socketFlag: String? = nil
    ) throws -> ResolvedConfiguration {
        let settings: DaemonConfiguration
        do {
            settings = try StrictJSON.decodeReportingEvery(DaemonConfiguration.self, from: data)
        } catch {
            throw ConfigurationErrors(
                errors: error.all.map { ConfigurationError(file: file, path: $0.path, reason: $0.reason) })
        }
        return try ConfigurationResolver(
            settings: settings, file: file, directory: directory, registry: registry, socketFlag: socketFlag
        ).resolve()
    }

    /// The embedded default: the demo key, the three built-in adapters, a socket under
    /// `$XDG_RUNTIME_DIR` (or `./.run`). Everything works with no file at all.
    public static func embeddedDefault(registry: AdapterRegistry, socketFlag: String? = nil) throws
        -> ResolvedConfiguration
    {
        var settings = DaemonConfiguration()
        settings.recipients = ["demo": .demo]
        let runDirectory = socketDirectory(of: defaultSocketPath())
        settings.adapters = [
            .init(name: "device-context", recipients: ["demo"]),
            .init(name: "first-party-id", recipients: ["demo"]),
            .init(
                name: "file", recipients: ["demo"],
                options: ["path": .string(runDirectory + "/secure-signals.signal"), "max_age_ms": 3_600_000]),
        ]
        settings.adUnits = MediationConfiguration.testUnits
        return try ConfigurationResolver(
            settings: settings, file: "(embedded default)",
            directory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath), registry: registry,
            socketFlag: socketFlag
        ).resolve()
    }
}

extension ResolvedConfiguration {
    /// What `--print-config` prints: the effective configuration as JSON that `--config` reads
    /// (`--log-level`, when given, is the level the daemon would run at, so it is the one shown).
    public func printedConfiguration(logLevel: Logger.Level? = nil) throws -> String {
        var settings = effective
        if let logLevel { settings.logLevel = logLevel.rawValue }
        let encoder = WireFormat.encoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        return String(decoding: try encoder.encode(settings), as: UTF8.self)
    }
}
