import Foundation
import Testing

/// Every route's answer, byte for byte, against transcripts kept in `Tests/Fixtures/golden`:
/// the refactors that change how answers are made must not change what they are. Values that
/// differ from run to run (ids, times, latencies, envelopes) are replaced by placeholders
/// before comparing. `GOLDEN_RECORD=1 swift test --filter Golden` writes the transcripts anew.
enum GoldenAnswers {
    /// One answer as the transcript keeps it.
    struct Answer: Sendable {
        var status: UInt
        var headers: [String: String]
        var body: String
    }

    /// Sends one request to the daemon, however it is reached.
    typealias Send =
        @Sendable (_ method: String, _ path: String, _ body: String?, _ contentType: String?) async throws
        -> Answer

    static let directory = repositoryRoot.appendingPathComponent("Tests/Fixtures/golden")
    static var recording: Bool { ProcessInfo.processInfo.environment["GOLDEN_RECORD"] == "1" }

    /// The configuration the scenario runs on (state and socket paths are the runner's).
    static var configuration: [String: Any] {
        demoConfig(
            adapters: [
                ["name": "test-echo", "recipients": ["demo"]],
                [
                    "name": "test-fail-init", "recipients": ["demo"],
                    "options": ["message": "the golden SDK is missing"],
                ],
                ["name": "first-party-id", "recipients": ["demo"]],
            ],
            extra: [
                "ad_units": [
                    "/6499/example/rewarded": [
                        "format": "rewarded", "waterfall": [testItem("/6499/example/rewarded")],
                    ],
                    "/21775744923/example/native": [
                        "format": "native", "waterfall": [testItem("/21775744923/example/native")],
                    ],
                    "/21775744923/example/native-backfill": [
                        "format": "native", "waterfall": [testItem("/21775744923/example/native-backfill")],
                    ],
                    "/golden/empty": [
                        "format": "native",
                        "waterfall": [
                            testItem("/21775744923/example/native", ["behavior": "no_fill"]),
                            testItem("/21775744923/example/native", ["behavior": "error"]),
                        ],
                    ],
                ]
            ])
    }

    static func testItem(_ parameter: String, _ options: [String: Any] = [:]) -> [String: Any] {
        ["network": "test", "parameter": parameter, "timeout_ms": 2000, "options": options]
    }

    /// Walks every route, in an order that leaves each answer the same from run to run, and
    /// compares each answer with its transcript.
    static func run(_ send: Send) async throws {
        var step = 0
        func exchange(_ name: String, _ method: String, _ path: String, _ body: String? = nil, type: String? = nil)
            async throws -> Answer
        {
            step += 1
            let contentType = type ?? (body == nil ? nil : "application/json")
            let answer = try await send(method, path, body, contentType)
            try check(String(format: "%03d-%@", step, name), method: method, path: path, body: body, answer: answer)
            return answer
        }
        func adID(_ answer: Answer) throws -> String {
            let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
            return try #require(object?["ad_id"] as? String, "\(answer.body)")
        }

        _ = try await exchange("health", "GET", "/v1/health")
        _ = try await exchange("adapters", "GET", "/v1/adapters")
        _ = try await exchange("privacy-unset", "GET", "/v1/privacy")
        _ = try await exchange(
            "signals", "POST", "/v1/signals",
            #"{"request_id":"golden","adapters":["test-echo","test-fail-init","first-party-id","nope"]}"#)
        _ = try await exchange(
            "privacy-set", "PUT", "/v1/privacy",
            #"{"limit_ad_tracking":false,"tcf_consent":"CPc","gpp":"DBAB","gpp_sid":[2,6],"us_privacy":"1YNN","gdpr_applies":true}"#
        )
        _ = try await exchange("privacy-get", "GET", "/v1/privacy")
        _ = try await exchange("privacy-minimal", "PUT", "/v1/privacy", #"{"limit_ad_tracking":false}"#)
        _ = try await exchange("reset", "POST", "/v1/adapters/first-party-id/reset")
        _ = try await exchange("reset-unknown", "POST", "/v1/adapters/nope/reset")
        _ = try await exchange("reset-unsupported", "POST", "/v1/adapters/test-echo/reset")
        _ = try await exchange("reset-not-ready", "POST", "/v1/adapters/test-fail-init/reset")

        let native = try adID(
            try await exchange(
                "load-native", "POST", "/v1/ads", #"{"ad_unit":"/21775744923/example/native","format":"native"}"#))
        _ = try await exchange(
            "load-custom-native", "POST", "/v1/ads",
            #"{"ad_unit":"/21775744923/example/native","format":"native","format_ids":["10063170"],"force":true}"#)
        _ = try await exchange(
            "load-backfill", "POST", "/v1/ads",
            #"{"ad_unit":"/21775744923/example/native-backfill","format":"native","options":{"custom_click_handling":true}}"#
        )
        let rewarded = try adID(
            try await exchange(
                "load-rewarded", "POST", "/v1/ads",
                #"{"ad_unit":"/6499/example/rewarded","format":"rewarded","ssv":{"user_id":"u1","custom_data":"c1"}}"#))
        _ = try await exchange("load-no-fill", "POST", "/v1/ads", #"{"ad_unit":"/golden/empty","format":"native"}"#)
        _ = try await exchange("load-unknown-unit", "POST", "/v1/ads", #"{"ad_unit":"/nope","format":"native"}"#)
        _ = try await exchange("load-bad-format", "POST", "/v1/ads", #"{"ad_unit":"/nope","format":"banner"}"#)

        _ = try await exchange("ad-get", "GET", "/v1/ads/\(native)")
        _ = try await exchange("ad-unknown", "GET", "/v1/ads/nope")
        _ = try await exchange("impression", "POST", "/v1/ads/\(native)/impression")
        _ = try await exchange("impression-again", "POST", "/v1/ads/\(native)/impression")
        _ = try await exchange("click", "POST", "/v1/ads/\(native)/click", #"{"asset":"headline"}"#)
        _ = try await exchange("click-again", "POST", "/v1/ads/\(native)/click")
        _ = try await exchange("show-native", "POST", "/v1/ads/\(native)/show")

        _ = try await exchange("progress-not-shown", "POST", "/v1/ads/\(rewarded)/progress", #"{"event":"start"}"#)
        _ = try await exchange("show", "POST", "/v1/ads/\(rewarded)/show")
        _ = try await exchange("show-again", "POST", "/v1/ads/\(rewarded)/show")
        _ = try await exchange("progress-start", "POST", "/v1/ads/\(rewarded)/progress", #"{"event":"start"}"#)
        _ = try await exchange("progress-bad", "POST", "/v1/ads/\(rewarded)/progress", #"{"event":"middle"}"#)
        _ = try await exchange("playback-error", "POST", "/v1/ads/\(rewarded)/error", #"{"code":405}"#)
        _ = try await exchange("playback-error-bad", "POST", "/v1/ads/\(rewarded)/error", #"{"code":42}"#)
        _ = try await exchange("progress-complete", "POST", "/v1/ads/\(rewarded)/progress", #"{"event":"complete"}"#)
        _ = try await exchange("progress-again", "POST", "/v1/ads/\(rewarded)/progress", #"{"event":"complete"}"#)
        _ = try await exchange("dismiss", "POST", "/v1/ads/\(rewarded)/dismiss")
        _ = try await exchange("dismiss-again", "POST", "/v1/ads/\(rewarded)/dismiss")

        _ = try await exchange("clock", "POST", "/testbed/clock", #"{"advance_ms":7200000}"#)
        _ = try await exchange("ad-expired", "GET", "/v1/ads/\(native)")

        _ = try await exchange("unknown-route", "GET", "/v2/everything")
        _ = try await exchange("wrong-method", "DELETE", "/v1/signals")
        _ = try await exchange("wrong-method-ad", "GET", "/v1/ads/\(native)/click")
        _ = try await exchange("malformed", "POST", "/v1/signals", "{nope")
        _ = try await exchange("unknown-field", "POST", "/v1/signals", #"{"request_id":"r","colour":1}"#)
        _ = try await exchange("missing-field", "POST", "/v1/signals", "{}")
        _ = try await exchange("bad-value", "POST", "/v1/signals", #"{"request_id":"r","timeout_ms":0}"#)
        _ = try await exchange("wrong-type", "PUT", "/v1/privacy", #"{"limit_ad_tracking":"yes"}"#)
        _ = try await exchange("not-json", "POST", "/v1/signals", "request_id=r", type: "text/plain")
        _ = try await exchange(
            "too-large", "POST", "/v1/signals", String(repeating: " ", count: 70_000), type: "application/json")
    }

    /// Compares one answer with its transcript, or writes the transcript when recording.
    static func check(_ name: String, method: String, path: String, body: String?, answer: Answer) throws {
        let file = directory.appendingPathComponent(name + ".txt")
        let request =
            "\(method) \(normalized(path))\n" + (body.map { $0.count > 200 ? "(\($0.count) bytes)" : $0 } ?? "")
        var headers = ""
        for name in ["content-type", "allow", "retry-after"] {
            if let value = answer.headers[name] { headers += "\(name): \(value)\n" }
        }
        let transcript = "\(request)\n\nHTTP \(answer.status)\n\(headers)\n\(normalized(answer.body))"
        if recording {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try transcript.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(transcript == expected, "\(name) differs from its transcript")
    }

    /// The answer with what varies between runs replaced: ids, times, latencies, envelopes.
    static func normalized(_ text: String) -> String {
        var text = text
        let replacements = [
            ("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uuid>"),
            (
                #""(uptime_s|latency_ms|init_latency_ms|expires_at|envelope)":("[^"]*"|[-0-9.eE+]+)"#,
                #""$1":"<varies>""#
            ),
        ]
        for (pattern, template) in replacements {
            let expression = try? NSRegularExpression(pattern: pattern)
            text =
                expression?.stringByReplacingMatches(
                    in: text, range: NSRange(text.startIndex..., in: text), withTemplate: template) ?? text
        }
        return text
    }
}

@Suite struct GoldenAnswerTests {
    @Test func everyRouteAnswersAsItsTranscriptSays() async throws {
        let daemon = try await RunningDaemon.start(config: GoldenAnswers.configuration)
        try await daemon.waitUntilAdaptersSettle()
        let client = daemon.client
        try await GoldenAnswers.run { method, path, body, contentType in
            let reply = try await client.request(
                .init(rawValue: method), path, json: body.map { Data($0.utf8) }, contentType: contentType)
            return GoldenAnswers.Answer(
                status: reply.status, headers: reply.headers, body: String(decoding: reply.body, as: UTF8.self))
        }
    }
}

@Suite struct GoldenEventTests {
    /// The event stream's lines for a rewarded ad's whole life, against their transcript.
    @Test func theEventStreamWritesAsItsTranscriptSays() async throws {
        let daemon = try await RunningDaemon.start(config: GoldenAnswers.configuration)
        try await daemon.waitUntilAdaptersSettle()
        let client = daemon.client
        let stream = try await client.events()
        func post(_ path: String, _ body: String = "{}") async throws -> [String: Any] {
            let reply = try await client.request(.POST, path, json: Data(body.utf8))
            return try JSONSerialization.jsonObject(with: reply.body) as? [String: Any] ?? [:]
        }
        let loaded = try await post(
            "/v1/ads", #"{"ad_unit":"/6499/example/rewarded","format":"rewarded","ssv":{"user_id":"u1"}}"#)
        let id = try #require(loaded["ad_id"] as? String)
        _ = try await post("/v1/ads/\(id)/show")
        _ = try await post("/v1/ads/\(id)/progress", #"{"event":"start"}"#)
        _ = try await post("/v1/ads/\(id)/progress", #"{"event":"complete"}"#)
        _ = try await post("/v1/ads/\(id)/dismiss")
        _ = try await post("/v1/ads", #"{"ad_unit":"/golden/empty","format":"native"}"#)
        var lines: [String] = []
        for try await event in stream {
            lines.append("event: \(event.name)\ndata: \(event.data)\n")
            if event.name == "failed_to_load" { break }
        }
        try GoldenAnswers.check(
            "events", method: "GET", path: "/v1/events", body: nil,
            answer: .init(
                status: 200, headers: ["content-type": "text/event-stream"], body: lines.joined(separator: "\n")))
    }
}
