import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real HTTP server on loopback standing in for ad servers (trackers, images): Python's
/// http.server over a directory, its request log read back by the test.
final class LocalAdServer: @unchecked Sendable {
    let directory: TemporaryDirectory
    let port: Int
    private let process = Process()
    private let log: URL

    init() async throws {
        directory = try TemporaryDirectory()
        log = directory.url.appendingPathComponent("requests.log")
        try Data().write(to: log)
        let output = try FileHandle(forWritingTo: log)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory.url.path,
        ]
        process.standardOutput = output
        process.standardError = output
        try process.run()
        var found: Int?
        for _ in 0..<200 where found == nil {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "port ") {
                found = Int(text[range.upperBound...].prefix { $0.isNumber })
            }
            if found == nil { try await Task.sleep(for: .milliseconds(25)) }
        }
        guard let found else { throw DaemonFailure("http.server did not say its port") }
        port = found
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    /// Puts a file where the server serves it.
    func serve(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: directory.url.appendingPathComponent(name))
    }

    /// How many GET requests for `path` the server logged.
    func requests(_ path: String) -> Int {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.components(separatedBy: "\"GET /\(path) ").count - 1
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
