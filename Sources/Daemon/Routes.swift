import Foundation
import Hummingbird
import SecureSignals
import SharedTypes

/// The socket API's routes (README, "API"): health, adapters, signals, privacy, reset, metrics.
enum Routes {
    /// Every path and the methods it takes, for 405 answers and the metrics' route label.
    static let table: [(pattern: [String], methods: [HTTPRequest.Method])] =
        [
            (["v1", "health"], [.get]),
            (["v1", "adapters"], [.get]),
            (["v1", "signals"], [.post]),
            (["v1", "privacy"], [.get, .put]),
            (["v1", "adapters", "*", "reset"], [.post]),
            (["metrics"], [.get]),
        ] + AdRoutes.table

    /// The route pattern a path matches, as "/v1/adapters/{name}/reset", and its methods.
    static func route(of path: String) -> (name: String, methods: [HTTPRequest.Method])? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        for (pattern, methods) in table where pattern.count == parts.count {
            if zip(pattern, parts).allSatisfy({ $0 == "*" || $0 == $1 }) {
                let name = "/" + pattern.map { $0 == "*" ? "{name}" : $0 }.joined(separator: "/")
                return (name, methods)
            }
        }
        return nil
    }

    static func install(on router: Router<DaemonRequestContext>, state: DaemonState, metrics: DaemonMetrics) {
        AdRoutes.install(on: router, state: state)
        router.get("/v1/health") { _, _ in
            let statuses = await state.statuses()
            var counts: [String: Int] = [:]
            for status in statuses { counts[status.state.rawValue, default: 0] += 1 }
            let uptime = ContinuousClock.now - state.startedAt
            return try JSONResponse.make(
                Health(
                    status: "ok", adapters: counts, uptimeSeconds: Double(uptime.components.seconds),
                    version: DaemonVersion.current))
        }

        router.get("/v1/adapters") { _, _ in
            try JSONResponse.make(["adapters": await state.statuses()])
        }

        router.post("/v1/signals") { request, _ in
            let body = try await JSONRequest.decode(SignalsRequest.self, from: request)
            let result = await state.collector.collect(
                requestID: body.requestID, adapters: body.adapters,
                timeout: body.timeoutMilliseconds.map { .milliseconds($0) })
            return try JSONResponse.make(result)
        }

        router.get("/v1/privacy") { _, _ in
            try JSONResponse.make(PrivacyAnswer(privacy: await state.collector.privacyState))
        }

        router.put("/v1/privacy") { request, _ in
            let privacy = try await JSONRequest.decode(StrictPrivacyState.self, from: request).state
            await state.collector.setPrivacy(privacy)
            await state.ads.setPrivacy(privacy)
            state.logger.info("privacy state set", metadata: ["limit_ad_tracking": "\(privacy.limitAdTracking)"])
            return try JSONResponse.make(PrivacyAnswer(privacy: privacy))
        }

        router.post("/v1/adapters/:name/reset") { _, context in
            let name = try context.parameters.require("name")
            do {
                try await state.collector.reset(adapter: name)
            } catch let error as ResetFailure {
                switch error {
                case .unknownAdapter(let message): throw APIError(.notFound, "unknown_adapter", message)
                case .unsupported(let message): throw APIError(.conflict, "reset_unsupported", message)
                case .notReady(let message): throw APIError(.conflict, "adapter_not_ready", message)
                case .failed(let message): throw APIError(.internalServerError, "reset_failed", message)
                }
            }
            state.logger.info("adapter reset", metadata: ["adapter": "\(name)"])
            return try JSONResponse.make(["adapter": name, "reset": "done"])
        }

        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
    }
}

/// `POST /v1/signals` body.
struct SignalsRequest: Decodable {
    var requestID: String
    var adapters: [String]?
    var timeoutMilliseconds: Int?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case requestID = "request_id"
        case adapters
        case timeoutMilliseconds = "timeout_ms"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        requestID = try container.decode(String.self, forKey: .requestID)
        guard (1...256).contains(requestID.utf8.count) else {
            throw StrictJSON.Failure(path: "request_id", reason: "must be 1 to 256 bytes long")
        }
        adapters = try container.decodeIfPresent([String].self, forKey: .adapters)
        timeoutMilliseconds = try container.decodeIfPresent(Int.self, forKey: .timeoutMilliseconds)
        if let timeout = timeoutMilliseconds, !(1...10_000).contains(timeout) {
            throw StrictJSON.Failure(path: "timeout_ms", reason: "must be between 1 and 10000, not \(timeout)")
        }
    }
}

/// `PUT /v1/privacy` body: the privacy state, refusing unknown fields.
struct StrictPrivacyState: Decodable {
    var state: PrivacyState

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(PrivacyState.CodingKeys.self)
        state = try PrivacyState(from: decoder)
    }
}

struct PrivacyAnswer: Encodable {
    /// Null until the platform sets one: no consent.
    var privacy: PrivacyState?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(privacy, forKey: .privacy)
    }

    enum CodingKeys: String, CodingKey { case privacy }
}

struct Health: Encodable {
    var status: String
    var adapters: [String: Int]
    var uptimeSeconds: Double
    var version: String

    enum CodingKeys: String, CodingKey {
        case status, adapters, version
        case uptimeSeconds = "uptime_s"
    }
}

/// The daemon's version, reported by health and `--version`.
public enum DaemonVersion {
    public static let current = "0.1.0"
}
