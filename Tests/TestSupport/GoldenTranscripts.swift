import Foundation

/// Answers kept byte for byte in `Tests/Fixtures/golden`, with what varies between runs (ids,
/// times, latencies, envelopes) replaced by placeholders: the refactors that change how answers
/// are made must not change what they are. `GOLDEN_RECORD=1 swift test` writes them anew.
public enum GoldenTranscripts {
    /// One answer as a transcript keeps it.
    public struct Answer: Sendable {
        public var status: UInt
        public var headers: [String: String]
        public var body: String

        public init(status: UInt, headers: [String: String], body: String) {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    public static let directory = repositoryRoot.appendingPathComponent("Tests/Fixtures/golden")
    public static var recording: Bool { ProcessInfo.processInfo.environment["GOLDEN_RECORD"] == "1" }

    /// The configuration the golden scenarios run on: the demo recipient, test and built-in
    /// adapters, the seeds' test ad units and one that never fills.
    public static var configuration: [String: Any] {
        func testItem(_ parameter: String, _ options: [String: Any] = [:]) -> [String: Any] {
            ["network": "test", "parameter": parameter, "timeout_ms": 2000, "options": options]
        }
        return [
            "recipients": [
                "demo": ["key_configs": [repositoryRoot.appendingPathComponent("keys/demo/demo.keyconfig").path]]
            ],
            "adapters": [
                ["name": "test-echo", "recipients": ["demo"]],
                [
                    "name": "test-fail-init", "recipients": ["demo"],
                    "options": ["message": "the golden SDK is missing"],
                ],
                ["name": "first-party-id", "recipients": ["demo"]],
            ],
            "ad_units": [
                "/6499/example/rewarded": ["format": "rewarded", "waterfall": [testItem("/6499/example/rewarded")]],
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
            ],
        ]
    }

    /// The transcript of one exchange: the request line and body, the status, the headers
    /// that matter, and the answer's body, normalized.
    public static func transcript(method: String, path: String, body: String?, answer: Answer) -> String {
        let request =
            "\(method) \(normalized(path))\n" + (body.map { $0.count > 200 ? "(\($0.count) bytes)" : $0 } ?? "")
        var headers = ""
        for name in ["content-type", "allow", "retry-after"] {
            if let value = answer.headers[name] { headers += "\(name): \(value)\n" }
        }
        return "\(request)\n\nHTTP \(answer.status)\n\(headers)\n\(normalized(answer.body))"
    }

    /// The transcript kept as `name`, after writing `transcript` there when recording.
    public static func expected(_ name: String, recording transcript: String) throws -> String {
        let file = directory.appendingPathComponent(name + ".txt")
        if recording {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try transcript.write(to: file, atomically: true, encoding: .utf8)
        }
        return try String(contentsOf: file, encoding: .utf8)
    }

    /// `text` with what varies between runs replaced: ids, times, latencies, envelopes, and
    /// whether a TC string has expired by now (its age grows with the real date).
    public static func normalized(_ text: String) -> String {
        var text = text
        let replacements = [
            ("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uuid>"),
            (
                #""(uptime_s|latency_ms|init_latency_ms|expires_at|expired|envelope)":("[^"]*"|[-0-9.eE+]+|true|false)"#,
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
