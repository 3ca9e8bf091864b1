import Client
import Foundation
import TestSupport
import Testing

/// The golden transcripts through the daemon's socket: every route's answer as the binary
/// serves it, and the event stream, which only a socket shows.
@Suite struct GoldenSocketTests {
    @Test func everyRouteAnswersThroughTheSocketAsItsTranscriptSays() async throws {
        let daemon = try await RunningDaemon.start(config: GoldenTranscripts.configuration)
        try await daemon.waitUntilAdaptersSettle()
        try await GoldenScenario.run(with: daemon.client)
    }

    /// The event stream's lines for a rewarded ad's whole life, against their transcript.
    @Test func theEventStreamWritesAsItsTranscriptSays() async throws {
        let daemon = try await RunningDaemon.start(config: GoldenTranscripts.configuration)
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
            lines.append("id: \(event.id ?? "none")\nevent: \(event.name)\ndata: \(event.data)\n")
            if event.name == "failed_to_load" { break }
        }
        let transcript = GoldenTranscripts.transcript(
            method: "GET", path: "/v1/events", body: nil,
            answer: .init(
                status: 200, headers: ["content-type": "text/event-stream"], body: lines.joined(separator: "\n")))
        #expect(try transcript == GoldenTranscripts.expected("events", recording: transcript))
    }
}
