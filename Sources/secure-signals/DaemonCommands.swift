import API
import ArgumentParser
import Client
import FoundationEssentials
import NIOHTTP1
import SharedTypes

/// Where the daemon listens, and whether to print JSON: shared by the commands that call it.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "The daemon's socket (default: $SECURE_SIGNALS_SOCKET, else the daemon's default).")
    var socket: String?

    @Flag(help: "Print the daemon's JSON answer instead of a table.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Act for this app (Secure-Signals-App): only a broker the daemon registers as hosting it may.",
            valueName: "id"))
    var app: String?

    var client: DaemonClient {
        var client = DaemonClient(socketPath: socket ?? DaemonClient.defaultSocketPath())
        client.app = app
        return client
    }
}

struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health", abstract: "Ask the daemon whether it is up, and how its adapters and networks are.",
        discussion: """
            A readiness probe: exits 0 when the daemon is ok and every signal adapter and ad \
            network is ready, every adapter program is running and every recipient has a key to \
            seal with; 1 when it is degraded (its state database takes no commits) or any of \
            those is not so (an adapter failed, timed out or is initializing, a program is \
            restarting, a recipient has no key), and says which; 2 when no daemon answers on \
            the socket. The first word agrees with the exit status: ok, degraded or not-ready.
            """)

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = connection.client
        let health: HealthReport
        let adapters: [AdapterStatus]
        let recipients: [RecipientStatus]
        do {
            health = try await client.health()
            adapters = try await client.adapters()
            recipients = try await client.recipients()
        } catch {
            printError(error)
            throw ExitCode(2)
        }
        let problems = Self.problems(adapters: adapters, recipients: recipients)
        let verdict = health.status != "ok" ? health.status : problems.isEmpty ? "ok" : "not-ready"
        if connection.json {
            try await printRaw(connection, Endpoints.health)
        } else {
            let counts = health.adapters.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
            print(
                "\(verdict): adapters and networks \(counts.isEmpty ? "none" : counts.joined(separator: ", ")); "
                    + "up \(Int(health.uptimeSeconds)) s; version \(health.version)")
            if health.status != "ok" {
                for warning in health.warnings { print("warning: \(warning)") }
            }
            for problem in problems { print(problem) }
        }
        if verdict != "ok" { throw ExitCode(1) }
    }

    /// What keeps the daemon from serving every signal: adapters not ready, programs not
    /// running, recipients without a key (their signals all fail `no_recipient_key`).
    static func problems(adapters: [AdapterStatus], recipients: [RecipientStatus]) -> [String] {
        adapters.compactMap { status in
            if status.state != .ready {
                return "not ready: \(status.name) (\(status.kind)): \(status.state.rawValue): \(status.description)"
            }
            guard let program = status.program, program.state != .running else { return nil }
            return "not ready: \(status.name) (\(status.kind)): its program is \(program.state.rawValue)"
                + (program.lastExit.map { " (it \($0))" } ?? "")
        }
            + recipients.filter(\.keyIDs.isEmpty).map { recipient in
                "no key: recipient \(recipient.name) (\(recipient.state.rawValue)): its signals fail no_recipient_key"
                    + (recipient.lastError.map { " (\($0))" } ?? "")
            }
    }
}

struct VersionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print this CLI's version and the running daemon's.",
        discussion: "Exits 1 when no daemon answers (the CLI's version is printed all the same).")

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let daemon: Result<String, any Error>
        do {
            daemon = .success(try await connection.client.health().version)
        } catch {
            daemon = .failure(error)
        }
        if connection.json {
            var daemonVersion = JSONValue.null
            if case .success(let version) = daemon { daemonVersion = .string(version) }
            try printJSON(["cli": .string(DaemonVersion.current), "daemon": daemonVersion])
        } else {
            print("cli     \(DaemonVersion.current)")
            if case .success(let version) = daemon { print("daemon  \(version)") }
        }
        if case .failure(let error) = daemon {
            printError(error)
            throw ExitCode(1)
        }
    }
}

struct AdaptersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adapters",
        abstract: "List the daemon's signal adapters and ad networks, or reset one adapter.",
        subcommands: [List.self, Reset.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the signal adapters and ad networks: state, versions, init latency, circuit, program.")

        @OptionGroup var connection: ConnectionOptions

        func run() async throws { try await listAdapters(connection) }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Reset a signal adapter: what it keeps (first-party-id: a new id), its cache and its circuit.",
            discussion: "Example: secure-signals adapters reset first-party-id")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The adapter's name, as `secure-signals adapters` lists it.")
        var name: String

        func run() async throws {
            let reply = try await connection.client.request(Endpoints.resetAdapter, name).successful()
            if connection.json {
                print(String(decoding: reply.body, as: UTF8.self))
            } else {
                print("reset \(name)")
            }
        }
    }
}

/// The adapters table (or the daemon's JSON).
private func listAdapters(_ connection: ConnectionOptions) async throws {
    if connection.json { return try await printRaw(connection, Endpoints.adapters) }
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
            adapter.initLatencyMilliseconds.map { $0.fixed(1) } ?? "-",
            adapter.circuit.state.rawValue, description,
        ]
    }
    print(
        Table(
            header: ["NAME", "KIND", "STATE", "ADAPTER", "SDK", "INIT MS", "CIRCUIT", "DESCRIPTION"], rows: rows))
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
            let body = SignalsBody(requestID: id, adapters: selection, timeoutMilliseconds: timeoutMs)
            return try await printRaw(connection, Endpoints.signals, body: try WireFormat.encoder().encode(body))
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
func printRaw(
    _ connection: ConnectionOptions, _ endpoint: Endpoint, _ parameters: String..., query: [(String, String)] = [],
    body: Data? = nil
) async throws {
    let reply = try await connection.client.request(
        HTTPMethod(rawValue: endpoint.method.rawValue), endpoint.path(parameters, query: query), json: body
    ).successful()
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
                index == row.count - 1 ? cell : cell.padded(to: widths[index])
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
