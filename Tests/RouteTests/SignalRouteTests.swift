import API
import Client
import Foundation
import NIOHTTP1
import SignalCrypto
import TestSupport
import Testing

/// The signal half of the socket API, in-process: signals and their envelopes, failures per
/// adapter, the cache, privacy and resets, every 4xx, metrics.
struct SignalRouteTests {
    /// A TC string granting vendor 755 everything: TCF v2.3, made today.
    static let tcString = ConsentStrings.TC.consentingToEverything(vendor: 755).string
    /// The same, with IsServiceSpecific 0: refused.
    static let notServiceSpecific = {
        var tc = ConsentStrings.TC.consentingToEverything(vendor: 755)
        tc.isServiceSpecific = false
        return tc.string
    }()

    static var echo: [String: Any] { ["name": "test-echo", "recipients": ["demo"], "timeout_ms": 1000] }

    @Test func envelopesOpenWithTheDemoKeyAndCarryTheRequestAndTheAdapter() async throws {
        let daemon = try await InProcessDaemon(config: demoConfig(adapters: [Self.echo]))
        try await daemon.run { client in
            let demo = try DemoRecipient(in: daemon.directory)
            let result = try await client.collect(requestID: "ad-request-7")
            #expect(result.requestID == "ad-request-7")
            #expect(result.errors.isEmpty)
            let signal = try #require(result.signals.first)
            #expect(signal.adapter == "test-echo" && signal.recipient == "demo" && signal.keyID == 1)
            #expect(signal.adapterVersion.description == "2.3.4" && signal.sdkVersion.description == "9.8.7")
            let payload = try demo.open(signal.envelope)
            #expect(payload["request_id"] as? String == "ad-request-7")
            #expect(payload["adapter"] as? String == "test-echo")
            #expect(payload["adapter_version"] as? String == "2.3.4" && payload["sdk_version"] as? String == "9.8.7")
            let raw = try #require(Data(base64Encoded: payload["signal"] as? String ?? ""))
            #expect(String(decoding: raw, as: UTF8.self).contains("ad-request-7"))
        }
    }

    /// The hang costs its 100 ms timeout, not the request's deadline: three requests that each
    /// waited for its 60 s would outlive the test's one-minute limit. No duration is asserted
    /// on the real clock.
    @Test(.timeLimit(.minutes(1))) func aHangingAdapterCostsOnlyItsOwnTimeout() async throws {
        let daemon = try await InProcessDaemon(
            config: demoConfig(
                adapters: [["name": "test-hang", "recipients": ["demo"], "timeout_ms": 100], Self.echo],
                deadlines: ["request_timeout_ms": 60_000]))
        try await daemon.run { client in
            for round in 0..<3 {
                let result = try await client.collect(requestID: "r\(round)")
                #expect(result.signals.map(\.adapter) == ["test-echo"])
                #expect(result.errors.map(\.adapter) == ["test-hang"])
                #expect(result.errors.map(\.code.rawValue) == ["timeout"])
            }
            #expect(try await client.health().status == "ok")
        }
    }

    @Test func anInitFailureIsReportedWithItsDescriptionOnEveryRequest() async throws {
        let daemon = try await InProcessDaemon(
            config: demoConfig(adapters: [
                ["name": "test-fail-init", "recipients": ["demo"], "options": ["message": "vendor SDK 3.1 missing"]],
                Self.echo,
            ]))
        try await daemon.run { client in
            let adapters = try await client.adapters()
            let failed = try #require(adapters.first { $0.name == "test-fail-init" })
            #expect(failed.state.rawValue == "failed")
            #expect(failed.description == "sdk_unavailable: vendor SDK 3.1 missing")
            #expect(adapters.first { $0.name == "test-echo" }?.state.rawValue == "ready")
            for request in ["one", "two"] {
                let result = try await client.collect(requestID: request)
                #expect(result.errors.count == 1)
                #expect(result.errors.first?.code.rawValue == "sdk_unavailable")
                #expect(result.errors.first?.message == "vendor SDK 3.1 missing")
                #expect(result.signals.count == 1)
            }
            let health = try await client.health()
            #expect(health.adapters == ["failed": 1, "ready": 1])
        }
    }

    @Test func cachedSignalsComeBackInFreshEnvelopes() async throws {
        var cached = Self.echo
        cached["cache_ttl_ms"] = 60_000
        let daemon = try await InProcessDaemon(config: demoConfig(adapters: [cached]))
        try await daemon.run { client in
            let demo = try DemoRecipient(in: daemon.directory)
            let first = try #require(try await client.collect(requestID: "first").signals.first)
            let second = try #require(try await client.collect(requestID: "second").signals.first)
            #expect(!first.cached && second.cached)
            #expect(first.envelope != second.envelope)
            let (a, b) = (try demo.open(first.envelope), try demo.open(second.envelope))
            #expect(a["signal"] as? String == b["signal"] as? String)
            #expect(b["request_id"] as? String == "second")
        }
    }

    @Test func privacyGatesTheFirstPartyIDAndResetRotatesIt() async throws {
        let daemon = try await InProcessDaemon(
            config: demoConfig(adapters: [["name": "first-party-id", "recipients": ["demo"], "cache_ttl_ms": 60_000]]))
        try await daemon.run { client in
            let demo = try DemoRecipient(in: daemon.directory)
            #expect(try await client.collect(requestID: "r").errors.map(\.code.rawValue) == ["consent_missing"])
            let consent = try JSONSerialization.data(withJSONObject: [
                "privacy": ["limit_ad_tracking": false, "tcf_consent": Self.tcString]
            ])
            #expect(try await client.request(.PUT, "/v1/privacy", json: consent).status == 200)
            let first = try #require(try await client.collect(requestID: "r").signals.first)
            let reset = try await client.request(.POST, "/v1/adapters/first-party-id/reset")
            #expect(reset.status == 200)
            let second = try #require(try await client.collect(requestID: "r").signals.first)
            #expect(!second.cached, "a reset drops the cached id")
            #expect(
                try demo.open(first.envelope)["signal"] as? String != demo.open(second.envelope)["signal"] as? String)
            let limited = try JSONSerialization.data(withJSONObject: ["privacy": ["limit_ad_tracking": true]])
            #expect(try await client.request(.PUT, "/v1/privacy", json: limited).status == 200)
            #expect(try await client.collect(requestID: "r").errors.map(\.code.rawValue) == ["consent_missing"])
            // Consent again, then cleared: no state is no consent, and GET says so.
            #expect(try await client.request(.PUT, "/v1/privacy", json: consent).status == 200)
            #expect(try await client.collect(requestID: "r").errors.isEmpty)
            let cleared = try await client.request(.DELETE, "/v1/privacy")
            #expect(cleared.status == 200 && String(decoding: cleared.body, as: UTF8.self) == "{\"privacy\":null}\n")
            #expect(try await client.collect(requestID: "r").errors.map(\.code.rawValue) == ["consent_missing"])
            let shown = try await client.request(.GET, "/v1/privacy")
            #expect(String(decoding: shown.body, as: UTF8.self) == "{\"privacy\":null}\n")
            let unknown = try await client.request(.POST, "/v1/adapters/nope/reset")
            #expect(unknown.status == 404 && unknown.apiError?.code == "unknown_adapter")
        }
    }

    @Test func aPathParameterTheClientEncodesIsTheNameTheDaemonFinds() async throws {
        // Adapter names may hold any letter; a client encodes each path value as one segment.
        let name = "zählung-v2"
        let daemon = try await InProcessDaemon(
            config: demoConfig(adapters: [["name": name, "type": "test-echo", "recipients": ["demo"]]]))
        try await daemon.run { client in
            #expect(Endpoints.resetAdapter.path(name) == "/v1/adapters/z%C3%A4hlung-v2/reset")
            // Found by its name: the echo adapter has no reset of its own (409 reset_unsupported),
            // where a name the daemon did not find would be 404 unknown_adapter.
            let reset = try await client.request(Endpoints.resetAdapter, name)
            #expect(
                reset.status == 409 && reset.apiError?.code == "reset_unsupported",
                "\(String(decoding: reset.body, as: UTF8.self))")
            let unknown = try await client.request(Endpoints.resetAdapter, "zählung-v3")
            #expect(unknown.status == 404 && unknown.apiError?.code == "unknown_adapter")
            let broken = try await client.request(.POST, "/v1/adapters/%E0%A4%A/reset")
            #expect(broken.status == 400 && broken.apiError?.code == "invalid_request")
        }
    }

    @Test func aConsentStringThatCannotBeDecodedIsRefusedAndTheStateInForceStays() async throws {
        let daemon = try await InProcessDaemon(config: demoConfig(adapters: [Self.echo]))
        try await daemon.run { client in
            let valid = try JSONSerialization.data(withJSONObject: [
                "privacy": [
                    "limit_ad_tracking": false, "tcf_consent": Self.tcString,
                    "us_privacy": "1YNN", "gpp": "DBABLA~BVQqAAAACg", "gpp_sid": [7],
                ]
            ])
            #expect(try await client.request(.PUT, "/v1/privacy", json: valid).status == 200)
            for (privacy, message) in [
                (["gpp": "DBABLA~BVVV"], "gpp: section usnat: ends at bit 24, needs 48 for SensitiveDataProcessing"),
                (
                    ["tcf_consent": "BOEFEAyOEFEAyAHABDENAI4AAAB9vABAASA"],
                    "tcf_consent: is a TCF v1 string; only TCF v2 is supported"
                ),
                (["us_privacy": "1YX"], "us_privacy: has 3 characters, needs 4"),
                (
                    ["tcf_consent": Self.notServiceSpecific],
                    "tcf_consent: IsServiceSpecific is 0; a TC string must be service-specific (TCF v2: it must always be 1)"
                ),
                (["addtl_consent": "2~1.35"], "addtl_consent: a version 2 string has 3 parts (2~ids~dv.ids), not 2"),
            ] {
                var body = privacy as [String: Any]
                body["limit_ad_tracking"] = false
                let refused = try await client.request(
                    .PUT, "/v1/privacy", json: try JSONSerialization.data(withJSONObject: ["privacy": body]))
                #expect(refused.status == 400 && refused.apiError?.code == "invalid_consent")
                #expect(refused.apiError?.message == message)
            }
            let kept = try await client.request(.GET, "/v1/privacy/decoded")
            let decoded = try #require(try JSONSerialization.jsonObject(with: kept.body) as? [String: Any])
            let tcf = try #require(decoded["tcf"] as? [String: Any])
            #expect(tcf["cmp_id"] as? Int == 7 && tcf["created"] as? Int == Int(ConsentStrings.today))
            #expect(tcf["purpose_consents"] as? [Int] == Array(1...11) && tcf["consent_language"] as? String == "EN")
            #expect(tcf["disclosed_vendors"] as? [Int] == [755])
            #expect((decoded["us_privacy"] as? [String: Any])?["OptOutSale"] as? String == "N")
            let gpp = try #require(decoded["gpp"] as? [String: Any])
            #expect(gpp["section_ids"] as? [Int] == [7])
            let usnat = try #require((gpp["sections"] as? [String: Any])?["usnat"] as? [String: Any])
            #expect(usnat["SaleOptOut"] as? Int == 2 && usnat["GpcSegmentIncluded"] as? Bool == false)
            _ = try await client.request(.DELETE, "/v1/privacy")
            let none = try await client.request(.GET, "/v1/privacy/decoded")
            #expect(String(decoding: none.body, as: UTF8.self) == "{}\n")
        }
    }

    @Test func every4xxAnswersItsJSONError() async throws {
        let daemon = try await InProcessDaemon(config: demoConfig(adapters: [Self.echo]))
        try await daemon.run { client in
            let cases: [(String, DaemonClient.Reply, UInt, String, String?)] = [
                (
                    "malformed JSON", try await client.request(.POST, "/v1/signals", json: Data("{nope".utf8)), 400,
                    "invalid_request", "not valid JSON"
                ),
                (
                    "unknown field",
                    try await client.request(.POST, "/v1/signals", json: Data(#"{"request_id":"r","colour":1}"#.utf8)),
                    400,
                    "invalid_request", "colour: unknown key"
                ),
                (
                    "bad value",
                    try await client.request(
                        .POST, "/v1/signals", json: Data(#"{"request_id":"r","timeout_ms":0}"#.utf8)),
                    400, "invalid_request", "timeout_ms"
                ),
                (
                    "wrong type", try await client.request(.POST, "/v1/signals", json: Data(#"{"request_id":7}"#.utf8)),
                    400, "invalid_request", "request_id"
                ),
                (
                    "a fraction for a whole number",
                    try await client.request(
                        .POST, "/v1/signals", json: Data(#"{"request_id":"r","timeout_ms":1.5}"#.utf8)),
                    400, "invalid_request", "timeout_ms: must be a whole number, not 1.5"
                ),
                (
                    "a timeout past the deadline",
                    try await client.request(
                        .POST, "/v1/signals", json: Data(#"{"request_id":"r","timeout_ms":900}"#.utf8)),
                    400, "invalid_request", "timeout_ms: must be at most 500 (deadlines.request_timeout_ms), not 900"
                ),
                (
                    "a syntax error",
                    try await client.request(.POST, "/v1/signals", json: Data("{\n  \"request_id\" \"r\"}".utf8)),
                    400, "invalid_request", "not valid JSON (line 2, column"
                ),
                (
                    "missing field", try await client.request(.POST, "/v1/signals", json: Data("{}".utf8)), 400,
                    "invalid_request", "request_id: is required"
                ),
                (
                    "bad privacy",
                    try await client.request(
                        .PUT, "/v1/privacy", json: Data(#"{"privacy":{"limit_ad_tracking":"yes"}}"#.utf8)),
                    400,
                    "invalid_request", "privacy.limit_ad_tracking"
                ),
                (
                    "privacy not wrapped as GET gives it",
                    try await client.request(.PUT, "/v1/privacy", json: Data(#"{"limit_ad_tracking":false}"#.utf8)),
                    400,
                    "invalid_request", "limit_ad_tracking: unknown"
                ),
                ("unknown route", try await client.request(.GET, "/v2/everything"), 404, "not_found", nil),
                ("wrong method", try await client.request(.DELETE, "/v1/signals"), 405, "method_not_allowed", "POST"),
                // The router answers HEAD wherever it has GET, so a 405 offers both.
                (
                    "wrong method on a GET route", try await client.request(.POST, "/v1/health"), 405,
                    "method_not_allowed", "takes GET, HEAD,"
                ),
                (
                    "too large",
                    try await client.request(.POST, "/v1/signals", json: Data(repeating: 0x20, count: 70_000)),
                    413, "body_too_large", nil
                ),
                (
                    "not JSON",
                    try await client.request(
                        .POST, "/v1/signals", json: Data("request_id=r".utf8), contentType: "text/plain"), 415,
                    "unsupported_media_type", nil
                ),
                (
                    "no content type",
                    try await client.request(
                        .POST, "/v1/signals", json: Data(#"{"request_id":"r"}"#.utf8), contentType: nil), 415,
                    "unsupported_media_type", nil
                ),
            ]
            for (what, reply, status, code, mentions) in cases {
                #expect(reply.status == status, "\(what)")
                let error = reply.apiError
                #expect(error?.code == code, "\(what): \(String(decoding: reply.body, as: UTF8.self))")
                if let mentions {
                    #expect(error?.message.contains(mentions) == true, "\(what): \(error?.message ?? "")")
                }
            }
            #expect(try await client.health().status == "ok")
        }
    }

    @Test func metricsCountAdaptersAndRoutes() async throws {
        let daemon = try await InProcessDaemon(
            config: demoConfig(adapters: [Self.echo, ["name": "test-throw", "recipients": ["demo"]]]))
        try await daemon.run { client in
            _ = try await client.collect(requestID: "m")
            _ = try await client.request(.GET, "/nowhere")
            _ = try await client.request(HTTPMethod(rawValue: "BREW"), "/v1/health")
            let reply = try await client.request(.GET, "/metrics")
            let text = String(decoding: reply.body, as: UTF8.self)
            #expect(reply.status == 200)
            #expect(text.contains(#"secure_signals_adapter_collection_seconds_bucket{adapter="test-echo""#))
            #expect(text.contains(#"secure_signals_adapter_collections_total{adapter="test-echo",outcome="ok"} 1"#))
            #expect(
                text.contains(
                    #"secure_signals_adapter_collections_total{adapter="test-throw",outcome="collection_failed"} 1"#))
            #expect(
                text.contains(#"secure_signals_http_requests_total{route="/v1/signals",method="POST",status="200"} 1"#))
            // Each route's latency, as a histogram with the same labels.
            #expect(
                text.contains(
                    #"secure_signals_http_request_duration_seconds_count{route="/v1/signals",method="POST"} 1"#
                ), "\(text)")
            #expect(text.contains(#"route="unknown",method="GET",status="404""#))
            // A made-up method is counted as "other": a client cannot add series at will.
            #expect(text.contains(#"route="/v1/health",method="other",status="405""#), "\(text)")
            #expect(!text.contains("BREW"))
            // Counted, not timed: a made-up path adds no histogram.
            #expect(!text.contains(#"secure_signals_http_request_duration_seconds_count{route="unknown""#))
        }
    }
}
