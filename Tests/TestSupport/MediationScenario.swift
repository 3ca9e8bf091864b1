import Client
import Foundation
import Timing

/// What the mediation tests share, in-process and through the binary: the seeds' test ad
/// units, configuration builders, and posting and collecting through a `DaemonClient`.
public protocol MediationScenario {}

extension MediationScenario {
    public static var rewarded: String { "/6499/example/rewarded" }
    public static var native: String { "/21775744923/example/native" }

    public static func unit(_ format: String, _ items: [[String: Any]], extra: [String: Any] = [:]) -> [String: Any] {
        ["format": format, "waterfall": items].merging(extra) { $1 }
    }

    public static func testItem(_ parameter: String, _ options: [String: Any] = [:], timeout: Int = 2000)
        -> [String: Any]
    {
        ["network": "test", "parameter": parameter, "timeout_ms": timeout, "options": options]
    }

    /// A configuration with no signal adapters and these ad units and networks.
    public static func config(units: [String: Any], networks: [String: Any] = [:]) -> [String: Any] {
        var extra: [String: Any] = ["ad_units": units]
        if !networks.isEmpty { extra["ad_networks"] = networks }
        return demoConfig(adapters: [], extra: extra)
    }

    /// POSTs `body` to `path`; the status and the JSON answer.
    public static func post(_ client: DaemonClient, _ path: String, _ body: [String: Any]? = nil) async throws -> (
        status: UInt, json: [String: Any]
    ) {
        let reply = try await client.request(
            .POST, path, json: try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data("{}".utf8))
        return (reply.status, (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any] ?? [:])
    }

    /// Events from `stream` until `done` holds for those seen so far, or `timeout` passes.
    public static func collect(
        _ stream: AsyncThrowingStream<ServerSentAdEvent, any Error>, timeout: Duration,
        until done: @escaping @Sendable ([(String, [String: Any])]) -> Bool
    ) async throws -> [(String, [String: Any])] {
        let outcome = await withTimeout(timeout) {
            var seen: [ServerSentAdEvent] = []
            for try await event in stream {
                seen.append(event)
                if done(seen.map { ($0.name, $0.fields) }) { break }
            }
            return seen
        }
        let events: [ServerSentAdEvent]?
        switch outcome {
        case .value(let seen): events = seen
        case .failure(let error): throw error
        case .timedOut: events = nil
        }
        guard let events else { throw DaemonFailure("the events did not come within \(timeout)") }
        return events.map { ($0.name, $0.fields) }
    }

    public static func errorCode(_ json: [String: Any]) -> String? {
        (json["error"] as? [String: Any])?["code"] as? String
    }
}

/// Counts events a test waits for.
public actor FailureCounter {
    public private(set) var count = 0
    public init() {}
    public func add() { count += 1 }
}

/// The daemon's `/metrics` text.
public func metricsText(_ client: DaemonClient) async throws -> String {
    String(decoding: try await client.request(.GET, "/metrics").body, as: UTF8.self)
}

/// The value of one series in the daemon's `/metrics` text, such as
/// `secure_signals_limit_refusals_total{limit="max_connections"}`; nil when it is not there.
public func metricValue(_ series: String, in client: DaemonClient) async throws -> Double? {
    try await metricsText(client).split(separator: "\n").first { $0.hasPrefix(series + " ") }
        .flatMap { Double($0.dropFirst(series.count + 1)) }
}

extension ServerSentAdEvent {
    /// The event's JSON object, as Foundation values.
    public var fields: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:]
    }
}
