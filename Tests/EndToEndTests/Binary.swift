import Bench
import Foundation
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

    /// Runs a program to its end without blocking a thread (`ChildProcess`).
    static func runProgram(
        _ executable: String, _ arguments: [String], stdin: [UInt8] = [], environment: [String: String]? = nil
    ) async throws -> Result {
        let scratch = try TemporaryDirectory()
        let inURL = scratch.url.appendingPathComponent("stdin")
        let outURL = scratch.url.appendingPathComponent("stdout")
        let errURL = scratch.url.appendingPathComponent("stderr")
        try Data(stdin).write(to: inURL)
        let ended = try await ChildProcess.run(
            executable, arguments, environment: environment, standardInput: .file(inURL.path),
            standardOutput: .file(outURL.path), standardError: .file(errURL.path))
        return Result(
            status: ended.status, stdout: Array(try Data(contentsOf: outURL)),
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
