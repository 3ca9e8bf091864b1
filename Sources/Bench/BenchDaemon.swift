import SharedTypes
import SignalCrypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
    private var process: ChildProcess?
    /// Just before the process was started: where its start-to-ready time begins.
    public private(set) var startedAt = ContinuousClock.now

    /// 8 `file` adapters whose 64-byte plaintexts stay cached, so each answers at once.
    public convenience init(
        daemonBinary: String, adapters: Int = 8, adUnits: [String: Any] = [:], extra: [String: Any] = [:],
        environment: [String: String] = [:], name: String = "bench"
    ) throws {
        try self.init(
            daemonBinary: daemonBinary, adUnits: adUnits, extra: extra, environment: environment, name: name
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
    /// benchmark starts more than one.
    public init(
        daemonBinary: String, adUnits: [String: Any] = [:], extra: [String: Any] = [:],
        environment: [String: String] = [:], name: String = "bench", makeAdapters: (URL) throws -> [[String: Any]]
    ) throws {
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
        try start(daemonBinary, ["--config", configPath], environment: environment)
    }

    /// The daemon on its embedded default (no `--config`): its runtime directory (the socket,
    /// the `file` adapter's path) and its state directory are the benchmark's.
    public init(embeddedDefaultOf daemonBinary: String, environment: [String: String] = [:], name: String = "bench")
        throws
    {
        directory = try Self.freshDirectory(name)
        let runtime = directory.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        socketPath = runtime.appendingPathComponent("secure-signals.sock").path
        sealer = nil
        let paths = [
            "XDG_RUNTIME_DIR": runtime.path, "STATE_DIRECTORY": directory.appendingPathComponent("state").path,
        ]
        try start(daemonBinary, [], environment: environment.merging(paths) { $1 })
    }

    private static func freshDirectory(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "secure-signals-\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    private func start(_ daemonBinary: String, _ arguments: [String], environment: [String: String]) throws {
        startedAt = .now
        process = try ChildProcess(
            daemonBinary, arguments + ["--log-level", "warning"],
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, quiet: true)
    }

    /// The daemon's process id.
    public var pid: Int32 { process?.pid ?? 0 }

    /// Waits until the daemon answers on its socket.
    public func waitUntilServing() async throws {
        for _ in 0..<600 {
            if FileManager.default.fileExists(atPath: socketPath) { return }
            guard let process, process.isRunning else {
                throw BenchFailure("secure-signalsd exited with \(process?.terminationStatus ?? -1)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchFailure("secure-signalsd did not listen within 30 s")
    }

    /// Stops the daemon and waits for it to exit before its directory goes: a daemon still
    /// draining would otherwise close its database by paths the next benchmark may be using.
    deinit {
        if let process, process.isRunning {
            kill(process.pid, SIGTERM)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
