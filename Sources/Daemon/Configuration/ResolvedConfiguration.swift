import Adapters
import Foundation
import Mediation
import SecureSignals
import SharedTypes
import SignalCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// A configuration error: the key path at fault and why. `--check-config` prints it and exits 78.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var file: String
    public var path: String
    public var reason: String
    public var description: String {
        path.isEmpty ? "\(file): \(reason)" : "\(file): \(path): \(reason)"
    }
}

/// The configuration the daemon runs on: files read, paths resolved, names checked.
public struct ResolvedConfiguration: Sendable {
    public var source: String
    public var socketPath: String
    public var socketMode: mode_t
    public var socketGroup: gid_t?
    public var access: AccessPolicy
    public var collector: CollectorConfiguration
    public var mediation: MediationConfiguration

    /// The configuration file (or the embedded default when `file` is nil), with the socket path
    /// overridden when `socket` is given (`--socket`).
    public static func load(file: String?, socket: String?, registry: AdapterRegistry) throws -> ResolvedConfiguration {
        var configuration =
            try file.map { try ResolvedConfiguration.load(file: $0, registry: registry) }
            ?? ResolvedConfiguration.embeddedDefault(registry: registry)
        if let socket {
            configuration.socketPath =
                socket.hasPrefix("/") ? socket : FileManager.default.currentDirectoryPath + "/" + socket
            guard configuration.socketPath.utf8.count < 108 else {
                throw ConfigurationError(
                    file: "--socket", path: "",
                    reason: "\(configuration.socketPath.utf8.count) bytes long; a Unix socket path must be under 108")
            }
        }
        return configuration
    }

    /// Reads and checks a configuration file against the adapter types of `registry`.
    public static func load(file: String, registry: AdapterRegistry) throws -> ResolvedConfiguration {
        let url = URL(fileURLWithPath: file).standardizedFileURL
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ConfigurationError(file: file, path: "", reason: "cannot read: \(error.localizedDescription)")
        }
        return try load(json: data, file: file, directory: url.deletingLastPathComponent(), registry: registry)
    }

    /// Reads and checks a configuration's JSON text, named `file` in errors; relative paths
    /// resolve against `directory`.
    static func load(json data: Data, file: String, directory: URL, registry: AdapterRegistry) throws
        -> ResolvedConfiguration
    {
        let settings: DaemonConfiguration
        do {
            settings = try StrictJSON.decode(DaemonConfiguration.self, from: data)
        } catch let failure as StrictJSON.Failure {
            throw ConfigurationError(file: file, path: failure.path, reason: failure.reason)
        }
        return try resolve(settings, file: file, directory: directory, registry: registry)
    }

    static func resolve(
        _ settings: DaemonConfiguration, file: String, directory: URL, registry: AdapterRegistry,
        demoRecipient: Recipient? = nil
    ) throws -> ResolvedConfiguration {
        func fail(_ path: String, _ reason: String) -> ConfigurationError {
            ConfigurationError(file: file, path: path, reason: reason)
        }
        func absolute(_ path: String) -> String {
            path.hasPrefix("/") ? path : directory.appendingPathComponent(path).standardizedFileURL.path
        }

        var recipients: [String: Recipient] = [:]
        if let demoRecipient { recipients[demoRecipient.name] = demoRecipient }
        for (name, recipient) in settings.recipients.sorted(by: { $0.key < $1.key }) {
            let path = "recipients.\(name).key_configs[0]"
            let configs: [KeyConfig]
            do {
                configs = try KeyFiles.readKeyConfigs(at: absolute(recipient.keyConfigs[0]))
                for (index, older) in recipient.keyConfigs.enumerated().dropFirst() {
                    do {
                        _ = try KeyFiles.readKeyConfigs(at: absolute(older))
                    } catch {
                        throw fail("recipients.\(name).key_configs[\(index)]", "\(error)")
                    }
                }
            } catch let error as ConfigurationError {
                throw error
            } catch {
                throw fail(path, "\(error)")
            }
            guard let newest = configs.first else { throw fail(path, "holds no key configuration") }
            do {
                recipients[name] = Recipient(name: name, sealer: try EnvelopeSealer(keyConfig: newest))
            } catch {
                throw fail(path, "\(error)")
            }
        }

        /// Options named `path` or ending in `_path` are paths: relative ones resolve like the file's own.
        func resolvingPaths(_ options: AdapterOptions) -> AdapterOptions {
            var resolved = options
            for (key, value) in options.values where key == "path" || key.hasSuffix("_path") {
                if case .string(let path) = value { resolved.values[key] = .string(absolute(path)) }
            }
            return resolved
        }

        var adapters: [AdapterConfiguration] = []
        var names = Set<String>()
        for (index, adapter) in settings.adapters.enumerated() {
            let at = "adapters[\(index)]"
            guard !adapter.name.isEmpty,
                adapter.name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            else {
                throw fail("\(at).name", "must be letters, digits, '-' or '_', not \"\(adapter.name)\"")
            }
            guard names.insert(adapter.name).inserted else {
                throw fail("\(at).name", "\"\(adapter.name)\" is used twice")
            }
            var program: ProgramSpec?
            if let exec = adapter.exec {
                program = try resolveProgram(exec, adapter, at: at)
            } else {
                let type = adapter.type ?? adapter.name
                guard registry.type(named: type) != nil else {
                    throw fail(
                        adapter.type == nil ? "\(at).name" : "\(at).type",
                        "no adapter type named \"\(type)\" (known: \(registry.names.joined(separator: ", ")); or give \"exec\")"
                    )
                }
            }
            for (position, recipient) in adapter.recipients.enumerated() where recipients[recipient] == nil {
                throw fail("\(at).recipients[\(position)]", "no recipient named \"\(recipient)\" in \"recipients\"")
            }
            adapters.append(
                AdapterConfiguration(
                    name: adapter.name, type: adapter.type, program: program, recipients: adapter.recipients,
                    timeout: .milliseconds(
                        adapter.timeoutMilliseconds ?? settings.deadlines.adapterTimeoutMilliseconds),
                    initTimeout: .milliseconds(
                        adapter.initTimeoutMilliseconds ?? settings.deadlines.initTimeoutMilliseconds),
                    cacheTTL: .milliseconds(adapter.cacheTTLMilliseconds), options: resolvingPaths(adapter.options),
                    circuitBreaker: adapter.circuitBreaker ?? settings.circuitBreaker))
        }

        /// An `exec` entry's program: resolved like every path, and executable now.
        func resolveProgram(_ exec: String, _ adapter: DaemonConfiguration.AdapterSettings, at: String) throws
            -> ProgramSpec
        {
            guard registry.programLauncher != nil else { throw fail("\(at).exec", "this daemon cannot run programs") }
            let path = absolute(exec)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw fail("\(at).exec", "\(path) does not exist")
            }
            guard !isDirectory.boolValue, Glibc.access(path, X_OK) == 0 else {
                throw fail("\(at).exec", "\(path) is not an executable file")
            }
            return ProgramSpec(
                executable: path, arguments: adapter.args, environment: adapter.env,
                stopGrace: .milliseconds(adapter.stopGraceMilliseconds ?? 3000))
        }

        var group: gid_t?
        if let name = settings.socket.group {
            if let number = gid_t(name) {
                group = number
            } else if let entry = getgrnam(name) {
                group = entry.pointee.gr_gid
            } else {
                throw fail("socket.group", "no group named \"\(name)\"")
            }
        }
        let socketPath = settings.socket.path.map(absolute) ?? defaultSocketPath()
        guard socketPath.utf8.count < 108 else {
            throw fail("socket.path", "\(socketPath.utf8.count) bytes long; a Unix socket path must be under 108")
        }
        let stateDirectory = settings.stateDirectory.map(absolute) ?? defaultStateDirectory()

        let networkTypes = BuiltinAdNetworks.registry
        for name in settings.adNetworks.keys.sorted() {
            guard let type = networkTypes.type(named: name) else {
                throw fail(
                    "ad_networks.\(name)",
                    "no ad network named \"\(name)\" (known: \(networkTypes.names.joined(separator: ", ")))")
            }
            if let problem = type.problem(withSetup: settings.adNetworks[name]?.setup ?? AdapterOptions()) {
                throw fail("ad_networks.\(name).setup", problem)
            }
        }
        var units: [AdUnit] = []
        var used = Set<String>()
        for (id, unit) in settings.adUnits.sorted(by: { $0.key < $1.key }) {
            guard !id.isEmpty, id.utf8.count <= 256 else {
                throw fail("ad_units", "an ad unit id must be 1 to 256 bytes")
            }
            for (index, item) in unit.waterfall.enumerated() where networkTypes.type(named: item.network) == nil {
                throw fail(
                    "ad_units.\(id).waterfall[\(index)].network",
                    "no ad network named \"\(item.network)\" (known: \(networkTypes.names.joined(separator: ", ")))")
            }
            used.formUnion(unit.waterfall.map(\.network))
            let waterfall = unit.waterfall.map {
                LineItem(
                    network: $0.network, parameter: $0.parameter, timeout: .milliseconds($0.timeoutMilliseconds),
                    options: $0.options)
            }
            for (index, item) in waterfall.enumerated() {
                let setup = settings.adNetworks[item.network]?.setup ?? AdapterOptions()
                if let type = networkTypes.type(named: item.network),
                    let problem = type.problem(
                        with: item, format: unit.format, setup: setup, signalAdapters: Set(adapters.map(\.name)))
                {
                    throw fail("ad_units.\(id).waterfall[\(index)]", problem)
                }
            }
            units.append(
                AdUnit(
                    id: id, format: unit.format, waterfall: waterfall, maxRetries: unit.maxRetries,
                    preload: unit.preload, expiry: .milliseconds(unit.expiryMilliseconds)))
        }
        let networks = used.union(settings.adNetworks.keys).sorted().map { name in
            let network = settings.adNetworks[name]
            return AdNetworkConfiguration(
                name: name, setup: network?.setup ?? AdapterOptions(), lazy: network?.lazy ?? false,
                initTimeout: .milliseconds(network?.initTimeoutMilliseconds ?? 10_000))
        }

        return ResolvedConfiguration(
            source: file, socketPath: socketPath, socketMode: mode_t(settings.socket.mode, radix: 8) ?? 0o660,
            socketGroup: group,
            access: AccessPolicy(
                ownUID: getuid(), socketGroup: group, allowedUIDs: Set(settings.access.allowedUIDs),
                allowedGIDs: Set(settings.access.allowedGIDs)),
            collector: CollectorConfiguration(
                adapters: adapters, recipients: recipients,
                requestTimeout: .milliseconds(settings.deadlines.requestTimeoutMilliseconds),
                maxSignalBytes: settings.deadlines.maxSignalBytes,
                stateDirectory: URL(fileURLWithPath: stateDirectory)),
            mediation: MediationConfiguration(units: units, networks: networks))
    }

    /// The embedded default: the demo key, the three built-in adapters, a socket under
    /// `$XDG_RUNTIME_DIR` (or `./.run`). Everything works with no file at all.
    public static func embeddedDefault(registry: AdapterRegistry) throws -> ResolvedConfiguration {
        let demo = Recipient(name: "demo", sealer: try EnvelopeSealer(keyConfig: try DemoKey.keyConfig()))
        var settings = DaemonConfiguration()
        let runDirectory = URL(fileURLWithPath: defaultSocketPath()).deletingLastPathComponent().path
        settings.adapters = [
            .init(name: "device-context", recipients: ["demo"]),
            .init(name: "first-party-id", recipients: ["demo"]),
            .init(
                name: "file", recipients: ["demo"],
                options: AdapterOptions([
                    "path": .string(runDirectory + "/secure-signals.signal"), "max_age_ms": .number(3_600_000),
                ])),
        ]
        settings.adUnits = MediationConfiguration.testUnits
        return try resolve(
            settings, file: "(embedded default)",
            directory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
            registry: registry, demoRecipient: demo)
    }

    /// `$XDG_RUNTIME_DIR/secure-signals.sock`, or `./.run/secure-signals.sock` without it.
    public static func defaultSocketPath() -> String {
        if let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime + "/secure-signals.sock"
        }
        return FileManager.default.currentDirectoryPath + "/.run/secure-signals.sock"
    }

    static func defaultStateDirectory() -> String {
        let environment = ProcessInfo.processInfo.environment
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty { return state + "/secure-signals" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.local/state/secure-signals" }
        return FileManager.default.currentDirectoryPath + "/.run/state"
    }

    /// What `--check-config` prints.
    public var summary: String {
        var lines = [
            "configuration \(source): OK",
            "socket        \(socketPath) (mode \(String(socketMode, radix: 8)), group \(socketGroup.map { "\($0)" } ?? "-"))",
            "state         \(collector.stateDirectory.path)",
            "deadline      \(collector.requestTimeout) per request, signals up to \(collector.maxSignalBytes) bytes",
        ]
        for (name, recipient) in collector.recipients.sorted(by: { $0.key < $1.key }) {
            let header = recipient.sealer.header
            lines.append("recipient     \(name): key id \(header.keyID), \(header.suite.aead.name)")
        }
        for adapter in collector.adapters {
            let type =
                adapter.program.map { " (exec \($0.executable))" }
                ?? (adapter.type == adapter.name ? "" : " (\(adapter.type))")
            lines.append(
                "adapter       \(adapter.name)\(type) -> \(adapter.recipients.joined(separator: ", ")); timeout \(adapter.timeout), cache \(adapter.cacheTTL)"
            )
        }
        for unit in mediation.units {
            lines.append(
                "ad unit       \(unit.id) (\(unit.format.rawValue)): \(unit.waterfall.map(\.network).joined(separator: " > "))"
            )
        }
        return lines.joined(separator: "\n")
    }
}

/// Who may use the socket: the daemon's own uid, root, the socket's group, and the allowlists.
public struct AccessPolicy: Sendable {
    public var ownUID: uid_t
    public var socketGroup: gid_t?
    public var allowedUIDs: Set<UInt32>
    public var allowedGIDs: Set<UInt32>

    /// Whether `peer` may connect: by uid, or by its primary gid or a group its user is a member of.
    public func allows(_ peer: PeerCredentials) -> Bool {
        if peer.uid == 0 || peer.uid == ownUID || allowedUIDs.contains(peer.uid) { return true }
        return ([peer.gid] + peer.groups).contains { $0 == socketGroup || allowedGIDs.contains($0) }
    }
}

/// The process at the other end of a Unix socket connection: pid, uid and primary gid from
/// SO_PEERCRED, and the groups its user belongs to (the group database: `usermod -aG` adds to it).
public struct PeerCredentials: Sendable, Equatable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    public var groups: [UInt32]

    public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// The supplementary groups of user `uid` (whose primary group is `gid`), from the group
    /// database; empty when the uid has no user entry.
    static func groups(ofUser uid: uid_t, primary gid: gid_t) -> [UInt32] {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name
        else { return [] }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, gid, &groups, &count) >= 0 else { return [] }
        }
        return Array(groups.prefix(Int(count)))
    }
}

/// The public key configuration of `keys/demo`, built in so the default works from any directory.
enum DemoKey {
    static let hex =
        "010020ce05b2c014fcb2859f0404b4d1ef6717b15fdbaa09533287cd6f1172412aff74000c000100010001000200010003"

    static func keyConfig() throws -> KeyConfig {
        try KeyConfig(decoding: [UInt8](hexString: hex) ?? [])
    }
}
