import ArgumentParser
import Client
import Foundation
import NIOHTTP1

/// Where the daemon listens, and whether to print JSON: shared by the commands that call it.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "The daemon's socket (default: $SECURE_SIGNALS_SOCKET, else the daemon's default).")
    var socket: String?

    @Flag(help: "Print the daemon's JSON answer instead of a table.")
    var json = false

    var client: DaemonClient { DaemonClient(socketPath: socket ?? DaemonClient.defaultSocketPath()) }
}

struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health", abstract: "Ask the daemon whether it is up, and how its adapters are.")

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        if connection.json { return try await printRaw(connection, "/v1/health") }
        let health = try await connection.client.health()
        let counts = health.adapters.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        print(
            "\(health.status): adapters \(counts.isEmpty ? "none" : counts); up \(Int(health.uptimeSeconds)) s; version \(health.version)"
        )
    }
}

struct AdaptersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adapters",
        abstract: "List the daemon's signal adapters: state, versions, init latency, circuit, program.")

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        if connection.json { return try await printRaw(connection, "/v1/adapters") }
        let adapters = try await connection.client.adapters()
        let rows = adapters.map { adapter in
            var description = adapter.description
            if let program = adapter.program {
                description += "; program \(program.state.rawValue), pid \(program.pid.map { "\($0)" } ?? "-")"
                description += ", \(program.restarts) restarts"
                if let exit = program.lastExit { description += ", last \(exit)" }
            }
            return [
                adapter.name, adapter.kind, adapter.state.rawValue, adapter.adapterVersion?.description ?? "-",
                adapter.sdkVersion?.description ?? "-",
                adapter.initLatencyMilliseconds.map { String(format: "%.1f", $0) } ?? "-",
                adapter.circuit.state.rawValue, description,
            ]
        }
        print(
            Table(
                header: ["NAME", "KIND", "STATE", "ADAPTER", "SDK", "INIT MS", "CIRCUIT", "DESCRIPTION"], rows: rows))
    }
}

struct CollectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collect",
        abstract: "Collect signals for one ad request: an envelope per adapter and recipient, an error per failure.",
        discussion: """
            Open an envelope with the recipient's private key:
              secure-signals collect --json | jq -r '.signals[0].envelope' | secure-signals open --key KEY.pem
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "The ad request's id, bound into every envelope (default: a new UUID).")
    var requestId: String?

    @Option(name: .customLong("adapter"), help: "Ask only this adapter; repeat for several (default: all).")
    var adapters: [String] = []

    @Option(help: "Deadline in milliseconds (default: the daemon's).")
    var timeoutMs: Int?

    func run() async throws {
        let id = requestId ?? UUID().uuidString.lowercased()
        let selection = adapters.isEmpty ? nil : adapters
        if connection.json {
            var body: [String: Any] = ["request_id": id]
            if let selection { body["adapters"] = selection }
            if let timeoutMs { body["timeout_ms"] = timeoutMs }
            return try await printRaw(connection, "/v1/signals", body: try JSONSerialization.data(withJSONObject: body))
        }
        let result = try await connection.client.collect(
            requestID: id, adapters: selection, timeoutMilliseconds: timeoutMs)
        print("request \(result.requestID): \(result.signals.count) signals, \(result.errors.count) errors")
        if !result.signals.isEmpty {
            print(
                Table(
                    header: ["ADAPTER", "VERSION", "SDK", "RECIPIENT", "KEY", "CACHED", "ENVELOPE"],
                    rows: result.signals.map {
                        [
                            $0.adapter, $0.adapterVersion.description, $0.sdkVersion.description, $0.recipient ?? "-",
                            $0.keyID.map(String.init) ?? "-", $0.cached ? "yes" : "no",
                            $0.envelope.count > 40 ? String($0.envelope.prefix(37)) + "..." : $0.envelope,
                        ]
                    }))
        }
        if !result.errors.isEmpty {
            print(
                Table(
                    header: ["ADAPTER", "ERROR", "MESSAGE"],
                    rows: result.errors.map { [$0.adapter, $0.code.rawValue, $0.message] }))
        }
    }
}

/// Prints the daemon's JSON answer as it is; a non-2xx answer fails the command.
func printRaw(_ connection: ConnectionOptions, _ path: String, body: Data? = nil) async throws {
    let reply = try await connection.client.request(body == nil ? .GET : .POST, path, json: body).successful()
    print(String(decoding: reply.body, as: UTF8.self), terminator: reply.body.last == UInt8(ascii: "\n") ? "" : "\n")
}

/// Columns padded to their widest cell.
struct Table: CustomStringConvertible {
    var header: [String]
    var rows: [[String]]

    var description: String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
