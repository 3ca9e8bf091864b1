import Client
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What the daemon acknowledged survives `kill -9`: the daemon binary, killed while it owes
/// tracker pings to a real local HTTP server that refuses them, then restarted on the same
/// state directory once the server takes them.
@Suite(.serialized)
struct DurabilityTests: MediationScenario {
    /// A native unit whose test line item names the server's impression and click trackers,
    /// the daemon's state kept in `state` across restarts.
    static func config(_ server: FakeAdServer, state: TemporaryDirectory) -> [String: Any] {
        var config = config(units: [
            native: unit(
                "native",
                [testItem(native, ["impression_tracker": server.url("/imp"), "click_tracker": server.url("/clk")])])
        ])
        config["state_directory"] = state.path("state")
        return config
    }

    /// Loads an ad and records its impression and click; answers how many of each the daemon
    /// acknowledged (0 or 1 each: a call cut short by a kill is not acknowledged).
    static func impressionAndClick(_ client: DaemonClient) async -> (impressions: Int, clicks: Int) {
        guard let load = try? await post(client, "/v1/ads", ["ad_unit": native, "format": "native", "force": true]),
            load.status == 200, let id = load.json["ad_id"] as? String
        else { return (0, 0) }
        // Concurrent loads of one unit join: another client may have recorded this ad's
        // impression first (a duplicate fires nothing), so only "recorded" counts.
        let impression = try? await post(client, "/v1/ads/\(id)/impression")
        guard impression?.status == 200 else { return (0, 0) }
        let click = try? await post(client, "/v1/ads/\(id)/click")
        func recorded(_ answer: (status: UInt, json: [String: Any])?) -> Int {
            answer?.status == 200 && answer?.json["recorded"] as? Bool == true ? 1 : 0
        }
        return (recorded(impression), recorded(click))
    }

    /// Restarts the daemon on `state`, moves its clock past every retry's pause, and waits until
    /// it owes nothing.
    static func restartAndSettle(_ server: FakeAdServer, state: TemporaryDirectory) async throws -> RunningDaemon {
        let daemon = try await RunningDaemon.start(config: config(server, state: state))
        #expect(try await post(daemon.client, "/testbed/clock", ["advance_ms": 3_600_000]).status == 200)
        _ = try await eventually {
            try await metricValue("secure_signals_tracker_outbox_pings", in: daemon.client) == 0 ? true : nil
        }
        return daemon
    }

    /// `rounds` times: starts the daemon, runs `load` on its client and socket until a SIGKILL
    /// at a random moment within `killWithin` ms, and keeps what the load counted as answered.
    static func killedUnderLoad<Count: Sendable>(
        rounds: Int, config: [String: Any], killWithin: ClosedRange<Int>,
        load: @escaping @Sendable (DaemonClient, String) async -> Count
    ) async throws -> [Count] {
        var counts: [Count] = []
        for _ in 0..<rounds {
            let daemon = try await RunningDaemon.start(config: config)
            let (client, socket) = (daemon.client, daemon.socketPath)
            let running = Task { await load(client, socket) }
            try await Task.sleep(for: .milliseconds(Int.random(in: killWithin)))
            daemon.send(SIGKILL)
            #expect(await daemon.waitForExit() != nil)
            counts.append(await running.value)
        }
        return counts
    }

    @Test func pingsAcknowledgedBeforeAKillArriveAfterTheRestart() async throws {
        let server = try await FakeAdServer()
        server.answer("/imp", .init(status: 503))
        server.answer("/clk", .init(status: 503))
        let state = try TemporaryDirectory()
        var acknowledged = (impressions: 0, clicks: 0)
        do {
            let daemon = try await RunningDaemon.start(config: Self.config(server, state: state))
            for _ in 0..<5 {
                let done = await Self.impressionAndClick(daemon.client)
                acknowledged.impressions += done.impressions
                acknowledged.clicks += done.clicks
            }
            daemon.send(SIGKILL)
            #expect(await daemon.waitForExit() != nil)
        }
        #expect(acknowledged == (5, 5))
        server.answer("/imp", .init(status: 204))
        server.answer("/clk", .init(status: 204))
        let daemon = try await Self.restartAndSettle(server, state: state)
        // Nothing had been taken: each acknowledged ping is taken once, after the restart, none is
        // missing. (Counted by what the server answered: a ping the killed daemon had in flight
        // may reach the server after the kill, and is refused like the others.)
        #expect(server.requests("/imp").filter { $0.status == 204 }.count == 5)
        #expect(server.requests("/clk").filter { $0.status == 204 }.count == 5)
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    @Test func killedAtRandomMomentsUnderLoadItLosesNothingItAcknowledged() async throws {
        let server = try await FakeAdServer()
        server.answer("/imp", .init(status: 503))
        server.answer("/clk", .init(status: 503))
        let state = try TemporaryDirectory()
        // Four clients at once until the kill; what each was answered is counted.
        let rounds = try await Self.killedUnderLoad(
            rounds: 20, config: Self.config(server, state: state), killWithin: 50...400
        ) { client, socket in
            await withTaskGroup(of: (Int, Int).self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var done = (0, 0)
                        while !Task.isCancelled {
                            let one = await Self.impressionAndClick(client)
                            done.0 += one.impressions
                            done.1 += one.clicks
                            if one == (0, 0), Task.isCancelled || !isListening(socket) { break }
                        }
                        return done
                    }
                }
                var total = (0, 0)
                for await done in group {
                    total.0 += done.0
                    total.1 += done.1
                }
                return total
            }
        }
        let acknowledged = (impressions: rounds.map(\.0).reduce(0, +), clicks: rounds.map(\.1).reduce(0, +))
        #expect(acknowledged.impressions > 10, "the load hardly ran: \(acknowledged)")
        server.answer("/imp", .init(status: 204))
        server.answer("/clk", .init(status: 204))
        let daemon = try await Self.restartAndSettle(server, state: state)
        // At least once: every acknowledged ping was taken; more only for calls cut short by a
        // kill (answered to no one) and pings in flight at one.
        let taken = { (path: String) in server.requests(path).filter { $0.status == 204 }.count }
        let arrived = (taken("/imp"), taken("/clk"))
        #expect(arrived.0 >= acknowledged.impressions && arrived.0 <= acknowledged.impressions + 20 * 4)
        #expect(arrived.1 >= acknowledged.clicks && arrived.1 <= acknowledged.clicks + 20 * 4)
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    @Test func rewardsEarnedWhileKilledAtRandomMomentsAreAllKeptAndNoneTwice() async throws {
        let state = try TemporaryDirectory()
        var config = Self.config(units: [Self.rewarded: Self.unit("rewarded", [Self.testItem(Self.rewarded)])])
        config["state_directory"] = state.path("state")
        let acknowledged = try await Self.killedUnderLoad(rounds: 10, config: config, killWithin: 50...300) {
            client, _ in
            var earned = 0
            while !Task.isCancelled {
                guard
                    let load = try? await Self.post(
                        client, "/v1/ads", ["ad_unit": Self.rewarded, "format": "rewarded", "force": true]),
                    let id = load.json["ad_id"] as? String,
                    (try? await Self.post(client, "/v1/ads/\(id)/show"))?.status == 200
                else { break }
                let complete = try? await Self.post(client, "/v1/ads/\(id)/progress", ["event": "complete"])
                guard complete?.status == 200 else { break }
                earned += 1
            }
            return earned
        }.reduce(0, +)
        #expect(acknowledged > 5, "the load hardly ran: \(acknowledged)")
        let daemon = try await RunningDaemon.start(config: config)
        let reply = try await daemon.client.request(.GET, "/v1/rewards?state=all")
        let rewards =
            ((try JSONSerialization.jsonObject(with: reply.body)) as? [String: Any])?["rewards"] as? [[String: Any]]
            ?? []
        let ids = rewards.compactMap { $0["transaction_id"] as? String }
        // Every acknowledged reward is there; more only for a call the kill cut short.
        #expect(ids.count >= acknowledged && ids.count <= acknowledged + 10, "\(ids.count) of \(acknowledged)")
        #expect(Set(ids).count == ids.count, "no reward twice")
        #expect(Set(rewards.compactMap { $0["ad_id"] as? String }).count == ids.count, "one reward per ad")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    /// Privacy changes, the device's and an app's, made until a SIGKILL at a random moment: after
    /// the restart each is the last one acknowledged (or the one the kill cut short).
    @Test func privacyChangesSurviveKillsAtRandomMoments() async throws {
        let state = try TemporaryDirectory()
        var config = Self.config(units: [:])
        config["state_directory"] = state.path("state")
        /// The counter a state carries: its GPP section id list `[n]`.
        func counter(_ reply: DaemonClient.Reply) -> Int? {
            let object = (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any]
            return ((object?["privacy"] as? [String: Any])?["gpp_sid"] as? [Int])?.first
        }
        var total = 0
        /// What each path kept after the round before (none before the first).
        var keptBefore: [String: Int?] = [:]
        for round in 0..<6 {
            let base = round * 100_000
            let acknowledged = try await Self.killedUnderLoad(rounds: 1, config: config, killWithin: 100...400) {
                client, socket -> [String: Int] in
                var acknowledged: [String: Int] = [:]
                var index = base
                while !Task.isCancelled {
                    index += 1
                    for path in ["/v1/device/privacy", "/v1/privacy"] {
                        let body = Data(#"{"privacy": {"limit_ad_tracking": false, "gpp_sid": [\#(index)]}}"#.utf8)
                        if let reply = try? await client.request(.PUT, path, json: body), reply.status == 200 {
                            acknowledged[path] = index
                        }
                    }
                    if !isListening(socket) { break }
                }
                return acknowledged
            }[0]
            let restarted = try await RunningDaemon.start(config: config)
            for path in ["/v1/device/privacy", "/v1/privacy"] {
                let kept = counter(try await restarted.client.request(.GET, path))
                // The last acknowledged, or the next one, whose answer the kill cut off. A kill
                // before this round's first answer (a busy machine) leaves the last round's, or
                // this round's first.
                let allowed: [Int?] = acknowledged[path].map { [$0, $0 + 1] } ?? [keptBefore[path] ?? nil, base + 1]
                #expect(
                    allowed.contains(kept),
                    "round \(round) \(path): kept \(kept ?? -1), acknowledged \(acknowledged[path] ?? -1)")
                keptBefore[path] = kept
                total += acknowledged[path].map { $0 - base } ?? 0
            }
            restarted.send(SIGTERM)
            #expect(await restarted.waitForExit() == 0)
        }
        #expect(total > 12, "the changes hardly ran: \(total)")
    }

    @Test func impressionsAFrequencyCapCountsSurviveKillsAtRandomMoments() async throws {
        let state = try TemporaryDirectory()
        var config = Self.config(units: [
            Self.native: Self.unit(
                "native", [Self.testItem(Self.native)],
                extra: ["frequency_caps": [["impressions": 1_000_000, "per_ms": 86_400_000]]])
        ])
        config["state_directory"] = state.path("state")
        // Two clients at once until the kill; each counts the impressions it was told were recorded.
        let acknowledged = try await Self.killedUnderLoad(rounds: 10, config: config, killWithin: 50...300) {
            client, socket in
            await withTaskGroup(of: Int.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        var recorded = 0
                        while !Task.isCancelled {
                            let one = await Self.impressionAndClick(client).impressions
                            recorded += one
                            if one == 0, !isListening(socket) { break }
                        }
                        return recorded
                    }
                }
                return await group.reduce(0, +)
            }
        }.reduce(0, +)
        #expect(acknowledged > 10, "the load hardly ran: \(acknowledged)")
        let daemon = try await RunningDaemon.start(config: config)
        let reply = try await daemon.client.request(.GET, "/v1/ad_units")
        let units =
            (try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])?["ad_units"] as? [[String: Any]]
        let caps = units?.first { $0["id"] as? String == Self.native }?["frequency_caps"] as? [[String: Any]]
        let shown = try #require(caps?.first?["shown"] as? Int)
        // Every acknowledged impression counts; more only for a call the kill cut short.
        #expect(shown >= acknowledged && shown <= acknowledged + 10 * 2, "\(shown) of \(acknowledged)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    @Test func aRewardEarnedBeforeAKillIsListedAndClaimedOnceAfterTheRestart() async throws {
        let state = try TemporaryDirectory()
        var config = Self.config(units: [Self.rewarded: Self.unit("rewarded", [Self.testItem(Self.rewarded)])])
        config["state_directory"] = state.path("state")
        do {
            let daemon = try await RunningDaemon.start(config: config)
            let load = try await Self.post(
                daemon.client, "/v1/ads", ["ad_unit": Self.rewarded, "format": "rewarded", "ssv": ["user_id": "p9"]])
            let id = try #require(load.json["ad_id"] as? String)
            #expect(try await Self.post(daemon.client, "/v1/ads/\(id)/show").status == 200)
            // The answer to the call that earned it comes once the reward is on disk.
            #expect(try await Self.post(daemon.client, "/v1/ads/\(id)/progress", ["event": "complete"]).status == 200)
            daemon.send(SIGKILL)
            #expect(await daemon.waitForExit() != nil)
        }
        let daemon = try await RunningDaemon.start(config: config)
        func cli(_ arguments: [String]) async throws -> Binary.Result {
            try await Binary.run("secure-signals", ["rewards"] + arguments + ["--socket", daemon.socketPath])
        }
        let listed = try await cli(["--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let rewards = try #require(
            (try JSONSerialization.jsonObject(with: Data(listed.stdout)) as? [String: Any])?["rewards"]
                as? [[String: Any]])
        #expect(rewards.count == 1)
        let id = try #require(rewards.first?["transaction_id"] as? String)
        #expect(rewards.first?["user_id"] as? String == "p9" && rewards.first?["claimed_at_ms"] is NSNull)
        let table = try await cli([])
        #expect(table.stdoutText.contains(id) && table.stdoutText.contains("10 coins"), "\(table.stdoutText)")
        let claim = try await cli(["claim", id])
        #expect(claim.status == 0 && claim.stdoutText == "claimed: 10 coins (\(id))\n", "\(claim.stderr)")
        let again = try await cli(["claim", id])
        #expect(again.status != 0 && again.stderr.contains("already_claimed"), "\(again.stderr)")
        #expect(try await cli([]).stdoutText == "no unclaimed rewards\n")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    @Test func aClientResumesWithLastEventIDAcrossADisconnectAndARestart() async throws {
        let state = try TemporaryDirectory()
        var config = Self.config(units: [Self.native: Self.unit("native", [Self.testItem(Self.native)])])
        config["state_directory"] = state.path("state")
        func loadAndImpress(_ client: DaemonClient) async throws {
            let load = try await Self.post(
                client, "/v1/ads", ["ad_unit": Self.native, "format": "native", "force": true])
            let id = try #require(load.json["ad_id"] as? String)
            #expect(try await Self.post(client, "/v1/ads/\(id)/impression").status == 200)
        }
        var daemon = try await RunningDaemon.start(config: config)
        // A request that hung here once in CI (not reproduced since) shows the daemon's log.
        do {
            // Seen: loaded, impression, paid. Then the client goes away.
            var ids: [String] = []
            do {
                let stream = try await daemon.client.events()
                try await loadAndImpress(daemon.client)
                let iterator = stream.makeAsyncIterator()
                for _ in 0..<3 { ids.append(try #require(try await iterator.next()?.id)) }
            }
            // Missed: loaded, impression, paid (the test network's ad has a value), twice.
            try await loadAndImpress(daemon.client)
            try await loadAndImpress(daemon.client)
            let resumed = try await daemon.client.events(lastEventID: ids.last)
            let iterator = resumed.makeAsyncIterator()
            var missed: [ServerSentAdEvent] = []
            for _ in 0..<6 { missed.append(try #require(try await iterator.next())) }
            #expect(missed.map(\.name) == ["loaded", "impression", "paid", "loaded", "impression", "paid"])
            let last = try #require(UInt64(ids.last ?? ""))
            #expect(missed.compactMap { $0.id.flatMap(UInt64.init) } == Array(last + 1...last + 6))
            // Then the live ones, none twice.
            try await loadAndImpress(daemon.client)
            #expect(try await iterator.next()?.id == "\(last + 7)")

            // After a restart the numbers go on, and what was kept is still there to resume from.
            daemon.send(SIGTERM)
            #expect(await daemon.waitForExit() == 0)
            daemon = try await RunningDaemon.start(config: config)
            let after = try await daemon.client.events(lastEventID: "\(last + 7)")
            let next = after.makeAsyncIterator()
            #expect(try await next.next()?.id == "\(last + 8)")
            #expect(try await next.next()?.id == "\(last + 9)")
            try await loadAndImpress(daemon.client)
            let live = try await next.next()
            #expect(live?.id == "\(last + 10)" && live?.name == "loaded")
            daemon.send(SIGTERM)
            #expect(await daemon.waitForExit() == 0)
        } catch {
            Issue.record("\(error); the daemon's log:\n\(daemon.log)")
        }
    }
}
