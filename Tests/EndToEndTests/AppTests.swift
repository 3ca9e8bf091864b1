import Foundation
import TestSupport
import Testing

/// Apps as apps: clients under other uids, on the daemon's real socket, recognized from what the
/// kernel says about them (SO_PEERCRED, /proc/PID/exe), each doing what it is granted.
@Suite(
    .enabled(
        if: getuid() == 0 && Binary.onPath("setpriv") != nil && Binary.onPath("curl") != nil
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"),
        "needs root, setpriv, curl and the system's python3 to connect as other users"))
struct AppTests {
    static var curl: String {
        URL(fileURLWithPath: Binary.onPath("curl") ?? "/usr/bin/curl").resolvingSymlinksInPath().path
    }

    static var config: [String: Any] {
        demoConfig(
            adapters: [DaemonTests.echo],
            extra: [
                "socket": ["mode": "0666"],
                "access": ["allowed_uids": [65532, 65533, 65534]],
                "apps": [
                    "unknown": "refuse",
                    "registered": [
                        "tv.example.news": ["match": ["uid": 65534], "capabilities": ["signals"]],
                        "tv.example.kiosk": ["match": ["uid": 65533, "exe": curl]],
                        "tv.example.browser": [
                            "match": ["uid": 65532], "capabilities": ["signals", "ads"], "hosts": ["tv.example.news"],
                        ],
                    ],
                ],
            ])
    }

    /// `curl` as `uid`: the HTTP status and the body of `method path`.
    static func curl(
        as uid: Int, _ method: String, _ path: String, body: String? = nil, app: String? = nil, socket: String
    ) async throws -> (status: String, body: String) {
        var arguments = [
            "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", curl, "-s", "-w", "\n%{http_code}", "-X", method,
            "--unix-socket", socket,
        ]
        if let body { arguments += ["-H", "Content-Type: application/json", "--data", body] }
        if let app { arguments += ["-H", "Secure-Signals-App: \(app)"] }
        let result = try await Binary.runProgram(
            try #require(Binary.onPath("setpriv")), arguments + ["http://localhost\(path)"])
        let text = result.stdoutText
        let status = text.split(separator: "\n").last.map(String.init) ?? ""
        return (status, text)
    }

    @Test func eachPeerIsTheAppTheKernelSaysAndDoesWhatThatAppMay() async throws {
        let daemon = try await RunningDaemon.start(config: Self.config)
        chmod(daemon.directory.url.path, 0o755)
        let socket = daemon.socketPath
        let signals = #"{"request_id": "r"}"#
        let load = #"{"ad_unit": "nowhere", "format": "native"}"#

        // The news app (by uid) asks for signals, and may not load ads.
        #expect(try await Self.curl(as: 65534, "POST", "/v1/signals", body: signals, socket: socket).status == "200")
        let refused = try await Self.curl(as: 65534, "POST", "/v1/ads", body: load, socket: socket)
        #expect(refused.status == "403" && refused.body.contains("\"not_permitted\""), "\(refused.body)")

        // The kiosk is uid 65533 running curl: curl gets in; another program of that uid does not.
        #expect(try await Self.curl(as: 65533, "GET", "/v1/health", socket: socket).status == "200")
        let python = try await Binary.runProgram(
            try #require(Binary.onPath("setpriv")),
            [
                "--reuid=65533", "--regid=65533", "--clear-groups", "/usr/bin/python3", "-c",
                """
                import socket
                s = socket.socket(socket.AF_UNIX); s.connect("\(socket)")
                s.sendall(b"GET /v1/health HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n")
                print(s.recv(4096).decode())
                """,
            ])
        #expect(
            python.stdoutText.hasPrefix("HTTP/1.1 403") && python.stdoutText.contains("unknown_app"),
            "\(python.stdoutText) \(python.stderr)")

        // The browser hosts the news app: as it, it may not load ads; the news app hosts no one.
        let hosted = try await Self.curl(
            as: 65532, "POST", "/v1/ads", body: load, app: "tv.example.news", socket: socket)
        #expect(hosted.status == "403" && hosted.body.contains("\"not_permitted\""), "\(hosted.body)")
        let impostor = try await Self.curl(as: 65534, "GET", "/v1/health", app: "tv.example.browser", socket: socket)
        #expect(impostor.status == "403" && impostor.body.contains("\"app_not_hosted\""), "\(impostor.body)")

        // The CLI, run by the broker, acts for the app it names with --app.
        let cli = try await Binary.runProgram(
            try #require(Binary.onPath("setpriv")),
            [
                "--reuid=65532", "--regid=65532", "--clear-groups", Binary.path("secure-signals"), "ads", "load",
                "--ad-unit", "nowhere", "--format", "native", "--app", "tv.example.news", "--socket", socket,
            ])
        #expect(cli.status != 0 && cli.stderr.contains("not_permitted"), "\(cli.stderr)")

        // Root is the operator, whatever apps.unknown says.
        #expect(try await daemon.client.health().status == "ok")
    }

    /// Two apps by uid, each with ads: each owns its privacy state and its ads.
    static var twoApps: [String: Any] {
        demoConfig(
            adapters: [],
            extra: [
                "socket": ["mode": "0666"],
                "access": ["allowed_uids": [65533, 65534]],
                "ad_units": [
                    "native": [
                        "format": "native",
                        "waterfall": [
                            ["network": "test", "parameter": "/21775744923/example/native", "timeout_ms": 2000]
                        ],
                    ]
                ],
                "apps": [
                    "unknown": "refuse",
                    "registered": [
                        "tv.example.news": ["match": ["uid": 65534]],
                        "tv.example.quiz": ["match": ["uid": 65533]],
                    ],
                ],
            ])
    }

    @Test func oneAppCannotSeeOrChangeAnothersPrivacyOrAds() async throws {
        let daemon = try await RunningDaemon.start(config: Self.twoApps)
        chmod(daemon.directory.url.path, 0o755)
        let socket = daemon.socketPath
        let (news, quiz) = (65534, 65533)

        // The news app's user limits ad tracking: its own state; the quiz app has none.
        let limited = #"{"privacy": {"limit_ad_tracking": true}}"#
        #expect(try await Self.curl(as: news, "PUT", "/v1/privacy", body: limited, socket: socket).status == "200")
        let quizState = try await Self.curl(as: quiz, "GET", "/v1/privacy", socket: socket)
        #expect(quizState.body.hasPrefix(#"{"privacy":null}"#), "\(quizState.body)")
        let device = try await Self.curl(as: quiz, "PUT", "/v1/device/privacy", body: limited, socket: socket)
        #expect(device.status == "403" && device.body.contains("\"not_permitted\""), "\(device.body)")

        // The news app's ad is not the quiz app's to see, show or count.
        let load = #"{"ad_unit": "native", "format": "native"}"#
        let loaded = try await Self.curl(as: news, "POST", "/v1/ads", body: load, socket: socket)
        #expect(loaded.status == "200", "\(loaded.body)")
        let ad = try #require(
            try JSONSerialization.jsonObject(with: Data(loaded.body.split(separator: "\n")[0].utf8)) as? [String: Any])
        let id = try #require(ad["ad_id"] as? String)
        #expect(try await Self.curl(as: quiz, "GET", "/v1/ads/\(id)", socket: socket).status == "404")
        #expect(try await Self.curl(as: quiz, "POST", "/v1/ads/\(id)/impression", socket: socket).status == "404")
        #expect(try await Self.curl(as: news, "POST", "/v1/ads/\(id)/impression", socket: socket).status == "200")
    }
}
