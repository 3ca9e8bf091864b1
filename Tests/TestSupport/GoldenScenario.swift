import Client
import Foundation
import NIOHTTP1
import Testing

/// The golden scenario: every route asked, in an order that leaves each answer the same from
/// run to run, each answer compared with its transcript (`GoldenTranscripts`). The route tests
/// run it in-process; the end-to-end tests run it through the daemon's socket.
public enum GoldenScenario {
    public typealias Answer = GoldenTranscripts.Answer

    /// Runs the scenario with `client`, which reaches a daemon on `GoldenTranscripts.configuration`
    /// whose adapters have settled, with the testbed's clock.
    public static func run(with client: DaemonClient) async throws {
        try await run { method, path, body, contentType in
            let reply = try await client.request(
                HTTPMethod(rawValue: method), path, json: body.map { Data($0.utf8) }, contentType: contentType)
            return Answer(
                status: reply.status, headers: reply.headers, body: String(decoding: reply.body, as: UTF8.self))
        }
    }

    typealias Send =
        @Sendable (_ method: String, _ path: String, _ body: String?, _ contentType: String?) async throws
        -> Answer

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
        _ = try await exchange("recipients", "GET", "/v1/recipients")
        _ = try await exchange("privacy-unset", "GET", "/v1/privacy")
        _ = try await exchange(
            "signals", "POST", "/v1/signals",
            #"{"request_id":"golden","adapters":["test-echo","test-fail-init","first-party-id","nope"]}"#)
        _ = try await exchange(
            "privacy-set", "PUT", "/v1/privacy",
            #"{"privacy":{"limit_ad_tracking":false,"tcf_consent":"CQujIwAQujIwAEsACBENCMFsAP_gAEPgAAYgF5wAQF5gXnABAXmAA.IF5wAQF5g","addtl_consent":"2~1.35.41.101~dv.9.21.81","gpp":"DBACNYA~CPSG_8APSG_8ANwAAAENAwCgAAAAAAAAAAAAAAAAAAAA.IAAA.YAAAAAAAAAAA~1YNN","gpp_sid":[2,6],"us_privacy":"1YNN","gdpr_applies":true}}"#
        )
        _ = try await exchange("privacy-get", "GET", "/v1/privacy")
        _ = try await exchange("privacy-decoded", "GET", "/v1/privacy/decoded")
        _ = try await exchange(
            "privacy-invalid-consent", "PUT", "/v1/privacy",
            #"{"privacy":{"limit_ad_tracking":false,"gpp":"DBABLA~BVVV","gpp_sid":[7]}}"#)
        _ = try await exchange("privacy-minimal", "PUT", "/v1/privacy", #"{"privacy":{"limit_ad_tracking":false}}"#)
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

        // Past the ad's one-hour expiry, within the hour it still answers `ad_expired`.
        _ = try await exchange("clock", "POST", "/testbed/clock", #"{"advance_ms":5400000}"#)
        _ = try await exchange("ad-expired", "GET", "/v1/ads/\(native)")

        _ = try await exchange("unknown-route", "GET", "/v2/everything")
        _ = try await exchange("wrong-method", "DELETE", "/v1/signals")
        _ = try await exchange("wrong-method-ad", "GET", "/v1/ads/\(native)/click")
        _ = try await exchange("malformed", "POST", "/v1/signals", "{nope")
        _ = try await exchange("unknown-field", "POST", "/v1/signals", #"{"request_id":"r","colour":1}"#)
        _ = try await exchange("missing-field", "POST", "/v1/signals", "{}")
        _ = try await exchange("bad-value", "POST", "/v1/signals", #"{"request_id":"r","timeout_ms":0}"#)
        _ = try await exchange("wrong-type", "PUT", "/v1/privacy", #"{"privacy":{"limit_ad_tracking":"yes"}}"#)
        _ = try await exchange("not-json", "POST", "/v1/signals", "request_id=r", type: "text/plain")
        _ = try await exchange(
            "too-large", "POST", "/v1/signals", String(repeating: " ", count: 70_000), type: "application/json")
        // Last, so that no step before it is renumbered: the decisions of the state set above.
        _ = try await exchange("privacy-decisions", "GET", "/v1/privacy/decisions")
    }

    /// Compares one answer with its transcript (writes the transcript when recording).
    static func check(_ name: String, method: String, path: String, body: String?, answer: Answer) throws {
        let transcript = GoldenTranscripts.transcript(method: method, path: path, body: body, answer: answer)
        #expect(try transcript == GoldenTranscripts.expected(name, recording: transcript), "\(name)")
    }
}
