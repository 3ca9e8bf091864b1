import Bench
import Client
import Foundation
import SharedTypes
import SignalCrypto
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A daemon binary started for one test, on a socket in its own temporary directory, with its
/// log in a file; killed if the test leaves it running.
final class RunningDaemon: @unchecked Sendable {
    let directory: TemporaryDirectory
    let socketPath: String
    let configPath: String
    let process: ChildProcess
    let logURL: URL
    let client: DaemonClient

    /// Writes `config` (with the socket and state directory filled in) and starts `binary`.
    /// `launcher` runs first when given (systemd-socket-activate, say) with the binary as its command.
    init(
        config: [String: Any], binary: String = "secure-signalsd-testbed", arguments: [String] = [],
        environment: [String: String] = [:], launcher: [String] = [], logLevel: String? = "debug"
    ) async throws {
        directory = try TemporaryDirectory()
        socketPath = directory.path("daemon.sock")
        configPath = directory.path("daemon.json")
        logURL = directory.url.appendingPathComponent("daemon.log")
        var config = config
        var socket = config["socket"] as? [String: Any] ?? [:]
        socket["path"] = socket["path"] ?? socketPath
        config["socket"] = socket
        config["state_directory"] = config["state_directory"] ?? directory.path("state")
        try JSONSerialization.data(withJSONObject: config, options: [.prettyPrinted]).write(
            to: URL(fileURLWithPath: configPath))
        client = DaemonClient(socketPath: socketPath)

        try Data().write(to: logURL)
        let command =
            [Binary.path(binary), "--config", configPath] + (logLevel.map { ["--log-level", $0] } ?? []) + arguments
        let line = launcher + command
        var env = ProcessInfo.processInfo.environment
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_PID", "LISTEN_FDS"] { env[key] = nil }
        process = try await ChildProcess.start(
            line[0], Array(line.dropFirst()), environment: env.merging(environment) { $1 },
            standardOutput: .file(logURL.path), standardError: .file(logURL.path))
    }

    /// Starts the daemon and waits until it serves (see `init`).
    static func start(
        config: [String: Any], binary: String = "secure-signalsd-testbed", arguments: [String] = [],
        environment: [String: String] = [:], launcher: [String] = [], logLevel: String? = "debug"
    ) async throws -> RunningDaemon {
        let daemon = try await RunningDaemon(
            config: config, binary: binary, arguments: arguments, environment: environment, launcher: launcher,
            logLevel: logLevel)
        try await daemon.waitForSocket()
        return daemon
    }

    /// Polls until something accepts connections on the socket (the daemon, or its launcher).
    func waitForSocket(timeout: Duration = .seconds(30)) async throws {
        do {
            _ = try await eventually(timeout: timeout) { () throws -> Bool? in
                if isListening(socketPath) { return true }
                guard process.isRunning else { throw DaemonFailure("the daemon exited early:\n\(log)") }
                return nil
            }
        } catch let failure as DaemonFailure where !failure.description.hasPrefix("the daemon exited early") {
            throw DaemonFailure("no socket after \(timeout):\n\(log)")
        }
    }

    /// Polls until no adapter is still initializing (each is ready or failed).
    func waitUntilAdaptersSettle(timeout: Duration = .seconds(30)) async throws {
        do {
            _ = try await eventually(timeout: timeout) {
                let statuses = (try? await client.adapters()) ?? []
                let settled = statuses.allSatisfy { $0.state.rawValue == "ready" || $0.state.rawValue == "failed" }
                return !statuses.isEmpty && settled ? true : nil
            }
        } catch {
            throw DaemonFailure("adapters still initializing after \(timeout):\n\(log)")
        }
    }

    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }
    var pid: Int32 { process.pid }

    func send(_ signal: Int32) { process.send(signal) }

    /// The exit status (the signal's number for a killed one), or nil if it is still running
    /// after `timeout`.
    func waitForExit(timeout: Duration = .seconds(60)) async -> Int32? {
        guard let ended = await process.exit(within: timeout) else {
            // What the test's failure alone does not say: what it logged last.
            FileHandle.standardError.write(
                Data("daemon \(pid) still running after \(timeout); its log ends:\n\(log.suffix(3000))\n".utf8))
            return nil
        }
        return ended.status
    }

    /// Kills a daemon the test left running.
    deinit {
        process.send(SIGKILL)
    }
}

/// Whether a Unix stream socket at `path` accepts connections.
func isListening(_ path: String) -> Bool {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in path.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
    }
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    } == 0
}

/// Runs `secure-signalsd --check-config` on each JSON text and expects it refused with exit
/// status 78 and one stderr line containing the case's text.
func expectCheckConfigRefuses(_ cases: [(json: String, says: String)], in directory: TemporaryDirectory) async throws {
    for (index, (json, says)) in cases.enumerated() {
        let file = directory.path("bad\(index).json")
        try json.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await Binary.run("secure-signalsd", ["--config", file, "--check-config"])
        #expect(result.status == 78, "\(json)")
        #expect(result.stderr.contains(says), "\(json): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(json): \(result.stderr)")
    }
}
