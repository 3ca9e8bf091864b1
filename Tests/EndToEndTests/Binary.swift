import Foundation
import SharedTypes
import Synchronization
import TestSupport

/// Runs the package's built executables as a user would, with files for the standard
/// streams so that no pipe can fill up.
enum Binary {
    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// The directory holding the built products: beside the test bundle.
    static let productsDirectory: URL = {
        if let override = ProcessInfo.processInfo.environment["SECURE_SIGNALS_PRODUCTS"] {
            return URL(fileURLWithPath: override)
        }
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
        ]
        return candidates.first {
            FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("secure-signals").path)
        } ?? candidates[0]
    }()

    static func path(_ name: String) -> String { productsDirectory.appendingPathComponent(name).path }

    static func run(
        _ name: String, _ arguments: [String], stdin: [UInt8] = [], environment: [String: String]? = nil
    ) async throws -> Result {
        try await runProgram(path(name), arguments, stdin: stdin, environment: environment)
    }

    /// Runs a program to its end without blocking a thread: tests share a cooperative pool
    /// as wide as the machine's cores, and Foundation needs a free one to see a child exit.
    static func runProgram(
        _ executable: String, _ arguments: [String], stdin: [UInt8] = [], environment: [String: String]? = nil
    ) async throws -> Result {
        let scratch = try TemporaryDirectory()
        let inURL = scratch.url.appendingPathComponent("stdin")
        let outURL = scratch.url.appendingPathComponent("stdout")
        let errURL = scratch.url.appendingPathComponent("stderr")
        try Data(stdin).write(to: inURL)
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = try FileHandle(forReadingFrom: inURL)
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        let exited = Mutex(false)
        process.terminationHandler = { _ in exited.withLock { $0 = true } }
        try process.run()
        let pid = process.processIdentifier
        // Foundation's reaper in this busy test process can lag far behind a child's exit (a
        // loaded machine left CLI children defunct for minutes): a zombie is reaped here, its
        // status read, as `RunningDaemon.waitForExit` does.
        let status = try await eventually(timeout: .seconds(600)) { () -> Int32? in
            if exited.withLock({ $0 }) { return process.terminationStatus }
            guard ProcFiles.stat(of: pid)?.state == "Z" else { return nil }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
            return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
        }
        return Result(
            status: status, stdout: Array(try Data(contentsOf: outURL)),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// The first executable of that name on PATH, if any.
    static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}
