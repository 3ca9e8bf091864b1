import API
import ArgumentParser
import Client
import FoundationEssentials
import SharedTypes

/// `secure-signals inspect ...`: the daemon's traces of its last ad loads and signals requests.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "See the last ad loads and signals requests, each load's bidders and sources, live.",
        discussion: """
            The daemon keeps a trace of each ad load and signals request in memory \
            (inspect.max_traces, 500). An app sees its own; an app with the inspect capability \
            (or root without apps) sees every app's.
              secure-signals inspect                   the last loads and signals requests
              secure-signals inspect --follow          each new one as it comes
              secure-signals inspect load 12           load 12 as a timeline: bidders, sources, bars
              secure-signals inspect --outcome no_fill --ad-unit /21775744923/example/native
            """,
        subcommands: [List.self, Load.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the last loads and signals requests, newest first (or follow new ones).")

        @Flag(help: "Print each new trace as it comes, until interrupted.")
        var follow = false

        @Flag(help: "Only loads.") var loads = false
        @Flag(help: "Only signals requests.") var signals = false
        @Option(help: "Only this ad unit's loads.") var adUnit: String?
        @Option(help: "Only this app's traces (--app is the app a broker asks for).") var onlyApp: String?
        @Option(help: "Only loads that ended so: filled, or an error code (no_fill, timeout, ...).")
        var outcome: String?
        @Option(help: "At most this many of each (1 to 10000).") var limit: Int = 20

        @OptionGroup var connection: ConnectionOptions

        func validate() throws {
            if loads && signals { throw ValidationError("--loads and --signals: choose one, or neither for both") }
            if !(1...10_000).contains(limit) { throw ValidationError("--limit must be 1 to 10000, not \(limit)") }
            if signals, adUnit != nil || outcome != nil {
                throw ValidationError("--ad-unit and --outcome filter loads, not signals requests")
            }
        }

        func run() async throws {
            let client = connection.client
            if follow { return try await self.follow(client) }
            var lines: [(id: UInt64, text: String, json: String)] = []
            let encoder = WireFormat.encoder()
            if !signals {
                for load in try await client.inspectLoads(adUnit: adUnit, app: onlyApp, outcome: outcome, limit: limit)
                {
                    lines.append(
                        (load.id, TraceText.line(load), String(decoding: try encoder.encode(load), as: UTF8.self)))
                }
            }
            if !loads, adUnit == nil, outcome == nil {
                for request in try await client.inspectSignals(app: onlyApp, limit: limit) {
                    lines.append(
                        (
                            request.id, TraceText.line(request),
                            String(decoding: try encoder.encode(request), as: UTF8.self)
                        ))
                }
            }
            if lines.isEmpty, !connection.json { print("no trace is kept yet (or none this app may see)") }
            for line in lines.sorted(by: { $0.id > $1.id }) { print(connection.json ? line.json : line.text) }
        }

        /// Each new trace, a line each (its JSON with --json), written at once even into a pipe.
        private func follow(_ client: DaemonClient) async throws {
            let stream = try await client.inspectStream(app: onlyApp, adUnit: adUnit)
            // Said once subscribed: what comes after this line is not missed.
            printNote("following new traces (Ctrl-C stops)")
            for try await event in stream {
                if loads && event.name != "load" || signals && event.name != "signals" { continue }
                var line: String
                if event.name == "load",
                    let load = try? WireFormat.decoder().decode(LoadTrace.self, from: Data(event.data.utf8))
                {
                    if let outcome, load.outcome != outcome { continue }
                    line = TraceText.line(load)
                } else if let request = try? WireFormat.decoder().decode(SignalsTrace.self, from: Data(event.data.utf8))
                {
                    if outcome != nil { continue }
                    line = TraceText.line(request)
                } else {
                    line = "\(event.name) \(event.data)"
                }
                if connection.json { line = event.data }
                try Array((line + "\n").utf8).withUnsafeBytes { try StandardStreams.write($0) }
            }
            // The daemon ends a stream when it stops or lets a client that fell behind go.
            throw CommandFailure("the daemon ended the stream (it stopped, or this client fell behind)")
        }
    }

    struct Load: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draw one load as a text timeline: a row per bidder and source, with its bar and outcome.")

        @Argument(help: "The load's trace id (from `secure-signals inspect`).") var id: String
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            if connection.json { return try await printRaw(connection, Endpoints.inspectLoad, id) }
            for line in TraceText.timeline(try await connection.client.inspectLoad(id)) { print(line) }
        }
    }
}
