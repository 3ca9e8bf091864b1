import FoundationEssentials
import SharedTypes
import SignalCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// A `secure-signalsd` started for a benchmark, sealing for a fresh key, on a temporary socket.
public final class BenchDaemon {
    public let socketPath: String
    /// Seals for the benchmark's recipient ("bench"); nil on the embedded default, which seals
    /// for the demo key.
    public let sealer: EnvelopeSealer?
    /// Where the daemon's files are; adapters may keep theirs here too.
    public let directory: URL
    private let process: ChildProcess
    /// Just before the process was started: where its start-to-ready time begins.
    public let startedAt: ContinuousClock.Instant

    /// 8 `file` adapters whose 64-byte plaintexts stay cached, so each answers at once.
    public convenience init(
        daemonBinary: String, adapters: Int = 8, adUnits: [String: Any] = [:], extra: [String: Any] = [:],
        environment: [String: String] = [:], name: String = "bench", launcher: [String] = []
    ) async throws {
        try await self.init(
            daemonBinary: daemonBinary, adUnits: adUnits, extra: extra, environment: environment, name: name,
            launcher: launcher
        ) {
            directory in
            try (0..<adapters).map { index in
                let file = directory.appendingPathComponent("signal-\(index).bin")
                try Data((0..<64).map { UInt8(truncatingIfNeeded: $0 + index) }).write(to: file)
                return [
                    "name": "bench-\(index)", "type": "file", "recipients": ["bench"], "timeout_ms": 1000,
                    "cache_ttl_ms": 3_600_000, "options": ["path": file.path],
                ]
            }
        }
    }

    /// The adapters `makeAdapters` lists (configuration entries; the recipient is "bench"),
    /// given the daemon's directory.
    /// `extra`: configuration keys set on top (socket mode, access, limits); `environment`:
    /// variables set for the daemon on top of this process's; `name`: its directory's, when a
    /// benchmark starts more than one; `launcher`: a program and its arguments that run the
    /// daemon (valgrind's), the daemon's process id then being the launcher's.
    public init(
        daemonBinary: String, adUnits: [String: Any] = [:], extra: [String: Any] = [:],
        environment: [String: String] = [:], name: String = "bench", launcher: [String] = [],
        makeAdapters: (URL) throws -> [[String: Any]]
    ) async throws {
        directory = try Self.freshDirectory(name)
        socketPath = directory.appendingPathComponent("bench.sock").path

        let key = try X25519PrivateKey()
        let config = KeyConfig(keyID: 1, publicKey: key.publicKey, aeads: [.aes128GCM])
        let keyConfigPath = directory.appendingPathComponent("bench.keyconfig").path
        try KeyFiles.writeKeyConfig(config, to: keyConfigPath, overwrite: true)
        sealer = try EnvelopeSealer(keyConfig: config)

        let adapterList = try makeAdapters(directory)
        var configuration: [String: Any] = [
            "socket": ["path": socketPath], "state_directory": directory.appendingPathComponent("state").path,
            "recipients": ["bench": ["key_configs": [keyConfigPath]]], "adapters": adapterList,
            "deadlines": ["request_timeout_ms": 5000], "ad_units": adUnits,
        ]
        configuration.merge(extra) { current, new in
            guard let current = current as? [String: Any], let new = new as? [String: Any] else { return new }
            return current.merging(new) { $1 }
        }
        let configPath = directory.appendingPathComponent("daemon.json").path
        let json = try JSONEncoder().encode(try JSONValue(configuration: configuration))
        try json.write(to: URL(fileURLWithPath: configPath))
        startedAt = .now
        process = try await Self.start(
            daemonBinary, ["--config", configPath], environment: environment, launcher: launcher)
    }

    /// The daemon on its embedded default (no `--config`): its runtime directory (the socket,
    /// the `file` adapter's path) and its state directory are the benchmark's.
    public init(embeddedDefaultOf daemonBinary: String, environment: [String: String] = [:], name: String = "bench")
        async throws
    {
        directory = try Self.freshDirectory(name)
        let runtime = directory.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        socketPath = runtime.appendingPathComponent("secure-signals.sock").path
        sealer = nil
        let paths = [
            "XDG_RUNTIME_DIR": runtime.path, "STATE_DIRECTORY": directory.appendingPathComponent("state").path,
        ]
        startedAt = .now
        process = try await Self.start(daemonBinary, [], environment: environment.merging(paths) { $1 })
    }

    private static func freshDirectory(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "secure-signals-\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The daemon, its standard error this process's (warnings and worse).
    private static func start(
        _ daemonBinary: String, _ arguments: [String], environment: [String: String], launcher: [String] = []
    ) async throws -> ChildProcess {
        let command = launcher + [daemonBinary] + arguments + ["--log-level", "warning"]
        return try await ChildProcess.start(
            command[0], Array(command.dropFirst()),
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, standardError: .inherited)
    }

    /// The daemon's process id.
    public var pid: Int32 { process.pid }

    /// Waits until the daemon answers on its socket (a daemon under valgrind may take minutes).
    public func waitUntilServing(within seconds: Int = 30) async throws {
        for _ in 0..<seconds * 20 {
            if FileManager.default.fileExists(atPath: socketPath) { return }
            if let ended = process.termination { throw BenchFailure("secure-signalsd \(ended)") }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchFailure("secure-signalsd did not listen within \(seconds) s")
    }

    /// Stops the daemon as systemd would (SIGTERM; SIGKILL after 30 s) and waits for its exit.
    public func stop() async {
        process.send(SIGTERM)
        if await process.exit(within: .seconds(30)) == nil {
            process.send(SIGKILL)
            _ = await process.exit()
        }
    }

    /// Kills a daemon still running (`stop` is the graceful way) before its directory goes: a
    /// killed daemon writes nothing more, where one still draining could close its database by
    /// paths the next benchmark may be using.
    deinit {
        process.send(SIGKILL)
        try? FileManager.default.removeItem(at: directory)
    }
}
