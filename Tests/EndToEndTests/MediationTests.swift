import Bench
import Client
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Native and rewarded ads through the daemon's socket: loads, the lifecycle, the event
/// stream, trackers and images against a real local HTTP server.
@Suite(.serialized)
struct MediationTests: MediationScenario {
    static func start(units: [String: Any], networks: [String: Any] = [:]) async throws -> RunningDaemon {
        let daemon = try await RunningDaemon.start(config: config(units: units, networks: networks))
        try await daemon.waitUntilAdaptersSettle()
        return daemon
    }

    @Test func theEmbeddedDefaultServesTheSeedsTestAdUnits() async throws {
        let directory = try TemporaryDirectory()
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory.url.path
        let result = try await Binary.run("secure-signalsd", ["--check-config"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        for unit in [Self.rewarded, Self.native, "/21775744923/example/native-backfill"] {
            #expect(result.stdoutText.contains("ad unit       \(unit)"), "\(result.stdoutText)")
        }
    }

    @Test func theCLILoadsAndDrivesARewardedAd() async throws {
        let daemon = try await Self.start(units: [Self.rewarded: Self.unit("rewarded", [Self.testItem(Self.rewarded)])])
        func cli(_ arguments: [String]) async throws -> Binary.Result {
            try await Binary.run("secure-signals", ["ads"] + arguments + ["--socket", daemon.socketPath])
        }
        let load = try await cli([
            "load", "--ad-unit", Self.rewarded, "--format", "rewarded", "--user-id", "u7", "--json",
        ])
        #expect(load.status == 0, "\(load.stderr)")
        let ad = try #require(try JSONSerialization.jsonObject(with: Data(load.stdout)) as? [String: Any])
        let id = try #require(ad["ad_id"] as? String)
        let table = try await cli(["load", "--ad-unit", Self.rewarded, "--format", "rewarded"])
        #expect(table.stdoutText.contains("ad \(id)") && table.stdoutText.contains("reward: 10 coins"))
        #expect(try await cli(["show", id]).stdoutText == "show: recorded\n")
        let again = try await cli(["show", id])
        #expect(again.status != 0 && again.stderr.contains("ad_already_used"), "\(again.stderr)")
        #expect(again.stderr.split(separator: "\n").count == 1)
        #expect(try await cli(["progress", id, "complete"]).status == 0)
        #expect(try await cli(["error", id, "405"]).stdoutText == "error: recorded\n")
        let badCode = try await cli(["error", id, "42"])
        #expect(badCode.status == 64 && badCode.stderr.contains("the code must be 100 to 999"), "\(badCode.stderr)")
        #expect(try await cli(["dismiss", id]).stdoutText == "dismiss: recorded\n")
        #expect(try await cli(["dismiss", id]).stdoutText == "dismiss: not recorded (duplicate)\n")
        let invalid = try await cli(["load", "--ad-unit", Self.native, "--format", "custom"])
        #expect(invalid.status == 64 && invalid.stderr.contains("--format custom needs --format-id"))
        let noFill = try await cli(["load", "--ad-unit", "/nowhere", "--format", "native"])
        #expect(noFill.status != 0 && noFill.stderr.contains("invalid_request"), "\(noFill.stderr)")
    }

    /// The CLI's summary of a load names each attempt's parameter and message, and each bid.
    @Test func theCLIsSummaryShowsEachAttemptsParameterAndMessageAndEachBid() async throws {
        let bidder = try await FakeAdServer()
        bidder.answer("/bid", .init(status: 204))
        let unit = Self.unit(
            "native", [Self.testItem(Self.native, ["behavior": "error"]), Self.testItem(Self.native)],
            extra: [
                "bidders": [
                    ["network": "openrtb", "parameter": "tag-1", "options": ["endpoint": bidder.url("/bid")]]
                ]
            ])
        let refused = Self.unit(
            "native",
            [["network": "openrtb", "parameter": "tag-2", "options": ["endpoint": "http://127.0.0.1:1/bid"]]])
        let daemon = try await Self.start(units: ["u": unit, "refused": refused])
        let load = try await Binary.run(
            "secure-signals", ["ads", "load", "--ad-unit", "u", "--format", "native", "--socket", daemon.socketPath])
        #expect(load.status == 0, "\(load.stderr)")
        let lines = load.stdoutText.split(separator: "\n").map(String.init)
        let waterfall = try #require(lines.first { $0.hasPrefix("waterfall: ") }, "\(load.stdoutText)")
        #expect(
            waterfall.contains("test \(Self.native) error ")
                && waterfall.contains(" ms: the test network was told to fail; test \(Self.native) filled "),
            "\(waterfall)")
        let bids = try #require(lines.first { $0.hasPrefix("bids: ") }, "\(load.stdoutText)")
        #expect(
            bids.hasPrefix("bids: openrtb tag-1 no_bid ") && bids.hasSuffix(" ms: the bidder answered 204: no bid"),
            "\(bids)")

        let failed = try await Binary.run(
            "secure-signals",
            ["ads", "load", "--ad-unit", "refused", "--format", "native", "--socket", daemon.socketPath])
        #expect(failed.status != 0)
        #expect(
            failed.stderr.contains("(tried: openrtb tag-2 error ")
                && failed.stderr.contains(" ms: bidder: connection refused by 127.0.0.1:1)"), "\(failed.stderr)")
    }

    @Test func readinessWaitsForTheAdNetworksSetUp() async throws {
        let directory = try TemporaryDirectory()
        let listener = try NotifyListener(path: directory.path("notify.sock"))
        let clock = ContinuousClock()
        let start = clock.now
        let daemon = try await RunningDaemon.start(
            config: demoConfig(
                adapters: [],
                extra: [
                    "ad_units": [Self.native: Self.unit("native", [Self.testItem(Self.native)])],
                    "ad_networks": ["test": ["setup": ["setup_delay_ms": 800]]],
                ]),
            environment: ["NOTIFY_SOCKET": listener.path])
        let ready = await listener.wait { $0.contains("READY=1") }
        #expect(clock.now - start >= .milliseconds(800), "READY waited for the network's setup")
        #expect(ready?.contains("1 of 1 adapters ready") == true, "\(listener.messages)")
        let network = try #require(try await daemon.client.adapters().first { $0.name == "test" })
        #expect(network.state == .ready && (network.initLatencyMilliseconds ?? 0) >= 800)
    }

    @Test func aReloadTakesNewAdUnitsAndDropsRemovedOnes() async throws {
        let daemon = try await Self.start(units: ["old": Self.unit("native", [Self.testItem(Self.native)])])
        #expect(try await Self.post(daemon.client, "/v1/ads", ["ad_unit": "old", "format": "native"]).status == 200)
        let config = demoConfig(
            adapters: [], extra: ["ad_units": ["new": Self.unit("rewarded", [Self.testItem(Self.rewarded)])]]
        ).merging(["socket": ["path": daemon.socketPath], "state_directory": daemon.directory.path("state")]) { $1 }
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: daemon.configPath))
        daemon.send(SIGHUP)
        let loaded = try await eventually {
            let reply = try await Self.post(daemon.client, "/v1/ads", ["ad_unit": "new", "format": "rewarded"])
            return reply.status == 200 ? reply : nil
        }
        #expect(loaded.json["reward"] != nil)
        let gone = try await Self.post(daemon.client, "/v1/ads", ["ad_unit": "old", "format": "native"])
        #expect(gone.status == 400 && Self.errorCode(gone.json) == "invalid_request")
    }

}
