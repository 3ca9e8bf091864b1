import Foundation
import TestSupport
import Testing

/// The inspector on the daemon binary: its page on the loopback listener (`inspect.page`),
/// answered to loopback names only and showing every app's loads, while on the socket an app's
/// list and live stream hold its own traces alone. (The page's drawing is checked in headless
/// Chromium by scripts/check-inspector-page.py.)
@Suite(
    .enabled(
        if: getuid() == 0 && Binary.onPath("setpriv") != nil && Binary.onPath("curl") != nil,
        "needs root, setpriv and curl to load as another app"))
struct InspectorPageTests: MediationScenario {
    static let unit = "/page/native"
    static let news = "tv.example.news"

    static func config(port: Int) -> [String: Any] {
        demoConfig(
            adapters: [DaemonTests.echo],
            extra: [
                "socket": ["mode": "0666"],
                "access": ["allowed_uids": [65534]],
                "apps": ["registered": [news: ["match": ["uid": 65534], "capabilities": ["signals", "ads"]]]],
                "metrics": ["listen": "127.0.0.1:\(port)"],
                "inspect": ["page": true],
                "ad_units": [unit: ["format": "native", "waterfall": [testItem(native)]]],
            ])
    }

    /// `curl` on the loopback listener: the status, the headers and the body of `GET path`.
    static func page(_ port: Int, _ path: String, host: String? = nil, headers: [String] = []) async throws -> (
        status: String, headers: String, body: String
    ) {
        var arguments = [
            "-s", "--max-time", "10", "-D", "-", "-w", "\n%{http_code}", "http://127.0.0.1:\(port)\(path)",
        ]
        // An empty Host takes curl's own out.
        if let host { arguments += ["-H", host.isEmpty ? "Host:" : "Host: \(host)"] }
        for header in headers { arguments += ["-H", header] }
        let text = try await Binary.runProgram(try #require(Binary.onPath("curl")), arguments).stdoutText
        let status = text.split(separator: "\n").last.map(String.init) ?? ""
        let parts = text.components(separatedBy: "\r\n\r\n")
        return (status, parts.first ?? "", parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    static var load: String { #"{"ad_unit": "\#(unit)", "format": "native"}"# }

    @Test func thePageShowsEveryAppsLoadsToLoopbackNamesAlone() async throws {
        let port = try DaemonTests.freeLoopbackPort()
        let daemon = try await RunningDaemon.start(config: Self.config(port: port))
        chmod(daemon.directory.url.path, 0o755)
        let socket = daemon.socketPath
        let html = try await eventually {
            let answer = try? await Self.page(port, "/inspect")
            return answer?.status == "200" ? answer : nil
        }
        #expect(html.headers.lowercased().contains("content-type: text/html; charset=utf-8"), "\(html.headers)")
        #expect(html.headers.contains("default-src 'none'; script-src 'self'"), "no inline script: \(html.headers)")
        #expect(html.body.contains(#"<script src="/inspect/inspector.js"></script>"#))
        #expect(try await Self.page(port, "/inspect/inspector.js").body.contains("new EventSource(base + \"/stream\")"))
        #expect(try await Self.page(port, "/inspect/inspector.css").status == "200")
        #expect(try await Self.page(port, "/").headers.contains("/inspect"), "the root sends a browser to the page")

        // A web page's own name pointed at 127.0.0.1 (DNS rebinding) reads nothing.
        let rebound = try await Self.page(port, "/inspect/loads", host: "attacker.example:\(port)")
        #expect(rebound.status == "403")
        #expect(rebound.body.contains(#""code":"host_not_loopback""#), "\(rebound.body)")
        #expect(try await Self.page(port, "/inspect/loads", host: "[::1]:8080").status == "200")
        #expect(try await Self.page(port, "/inspect/loads", host: "").status == "403", "no Host is no loopback name")
        #expect(try await Self.page(port, "/metrics", host: "attacker.example").status == "403", "nor for /metrics")
        // Another site's page (a no-cors fetch) may not hold the page's stream slots.
        let crossSite = try await Self.page(port, "/inspect/stream", headers: ["Sec-Fetch-Site: cross-site"])
        #expect(crossSite.status == "403" && crossSite.body.contains(#""code":"not_permitted""#), "\(crossSite)")
        #expect(try await Self.page(port, "/inspect/loads", headers: ["Sec-Fetch-Site: same-origin"]).status == "200")

        // The news app's load and root's: the page lists both, the app only its own.
        #expect(try await AppTests.curl(as: 65534, "POST", "/v1/ads", body: Self.load, socket: socket).status == "200")
        #expect(try await daemon.client.request(.POST, "/v1/ads", json: Data(Self.load.utf8)).status == 200)
        let all = try await Self.page(port, "/inspect/loads").body
        #expect(all.contains(#""app":"\#(Self.news)""#) && all.contains(#""app":"uid:0""#), "\(all)")
        let own = try await AppTests.curl(as: 65534, "GET", "/v1/inspect/loads", socket: socket).body
        #expect(own.contains(#""app":"\#(Self.news)""#) && !own.contains(#""app":"uid:0""#), "\(own)")
        let overview = try await Self.page(port, "/inspect/overview").body
        #expect(overview.contains(#""id":"\#(Self.unit)""#) && overview.contains(#""name":"test-echo""#), "\(overview)")
    }

    @Test func anAppsStreamCarriesItsOwnTracesAlone() async throws {
        let port = try DaemonTests.freeLoopbackPort()
        let daemon = try await RunningDaemon.start(config: Self.config(port: port))
        chmod(daemon.directory.url.path, 0o755)
        let socket = daemon.socketPath
        let curl: String = AppTests.curl
        async let stream = Binary.runProgram(
            try #require(Binary.onPath("setpriv")),
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", curl, "-sN", "--max-time", "5", "--unix-socket",
                socket, "http://localhost/v1/inspect/stream",
            ])
        // Once the app's stream is open (the daemon counts it), root loads, then the app.
        _ = try await eventually {
            let apps = try? await daemon.client.request(.GET, "/v1/apps")
            let text = apps.map { String(decoding: $0.body, as: UTF8.self) } ?? ""
            return text.contains(#""id":"\#(Self.news)""#) && text.contains(#""event_streams":1"#) ? true : nil
        }
        #expect(try await daemon.client.request(.POST, "/v1/ads", json: Data(Self.load.utf8)).status == 200)
        #expect(try await AppTests.curl(as: 65534, "POST", "/v1/ads", body: Self.load, socket: socket).status == "200")
        let events = try await stream.stdoutText
        #expect(events.components(separatedBy: "event: load").count == 2, "one load event: \(events)")
        #expect(events.contains(#""app":"\#(Self.news)""#) && !events.contains(#""app":"uid:0""#), "\(events)")
    }

    @Test func thePageNeedsTheLoopbackListener() async throws {
        let directory = try TemporaryDirectory()
        var config = demoConfig(adapters: [DaemonTests.echo], extra: ["inspect": ["page": true]])
        config["socket"] = ["path": directory.path("daemon.sock")]
        let path = directory.path("daemon.json")
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: path))
        let check = try await Binary.run("secure-signalsd", ["--config", path, "--check-config"])
        #expect(check.status == 78)
        #expect(check.stderr.contains("inspect.page: needs metrics.listen"), "\(check.stderr)")
    }
}
