import Client
import Foundation
import SecureSignals
import SharedTypes
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Adapter programs under the real daemon: one that works, and one for each way a program can
/// go wrong. In every case the daemon stays healthy, the built-in adapter beside it answers in
/// time, `/v1/adapters` and `/metrics` tell what happened, and no process outlives the daemon.
@Suite(.serialized)
struct ExecAdapterTests {
    static let faulty = repositoryRoot.appendingPathComponent("Tests/Fixtures/exec-adapters/faulty_adapter.py").path
    static let pythonExample =
        repositoryRoot.appendingPathComponent("examples/adapters/python/file_signal_adapter.py").path
    static let shellExample =
        repositoryRoot.appendingPathComponent("examples/adapters/shell/uptime_signal_adapter.sh").path
    static var echo: [String: Any] { ["name": "test-echo", "recipients": ["demo"], "timeout_ms": 1000] }
    static let echoRequest =
        repositoryRoot.appendingPathComponent("Tests/Fixtures/exec-adapters/echo_request_adapter.py").path

    /// A faulty_adapter.py entry in `mode`, its pids appended to `pidFile`.
    static func faulty(
        _ name: String, mode: String, pidFile: String, timeoutMilliseconds: Int = 1000, extra: [String: Any] = [:]
    ) -> [String: Any] {
        [
            "name": name, "exec": faulty, "args": ["--mode", mode, "--pid-file", pidFile], "recipients": ["demo"],
            "timeout_ms": timeoutMilliseconds,
        ].merging(extra) { $1 }
    }

    /// Starts the daemon and waits until no adapter is still initializing.
    static func start(_ adapters: [[String: Any]], deadlines: [String: Any] = [:]) async throws -> RunningDaemon {
        let daemon = try await RunningDaemon.start(config: demoConfig(adapters: adapters, deadlines: deadlines))
        try await daemon.waitUntilAdaptersSettle()
        return daemon
    }

    @Test func theExamplesAnswerLikeTheBuiltinFileAdapter() async throws {
        let directory = try TemporaryDirectory()
        let signalFile = directory.path("signal.bin")
        try Data("segment=42;lang=tr".utf8).write(to: URL(fileURLWithPath: signalFile))
        let daemon = try await Self.start(
            [
                ["name": "file", "recipients": ["demo"], "options": ["path": signalFile]],
                [
                    "name": "python-file", "exec": Self.pythonExample, "recipients": ["demo"], "timeout_ms": 1000,
                    "options": ["path": signalFile],
                ],
                ["name": "shell-uptime", "exec": Self.shellExample, "recipients": ["demo"], "timeout_ms": 1000],
            ])
        let demo = try DemoRecipient(in: daemon.directory)
        let result = try await daemon.client.collect(requestID: "exec-1")
        #expect(result.errors.isEmpty, "\(result.errors)")
        let byAdapter = Dictionary(uniqueKeysWithValues: result.signals.map { ($0.adapter, $0) })
        let python = try #require(byAdapter["python-file"])
        #expect(python.adapterVersion.description == "1.0.0")
        let fromFile = try demo.open(try #require(byAdapter["file"]).envelope)
        let fromPython = try demo.open(python.envelope)
        #expect(fromPython["signal"] as? String == fromFile["signal"] as? String)
        #expect(fromPython["request_id"] as? String == "exec-1" && fromPython["adapter"] as? String == "python-file")
        let shell = try demo.open(try #require(byAdapter["shell-uptime"]).envelope)
        let uptime = String(decoding: Data(base64Encoded: shell["signal"] as? String ?? "") ?? Data(), as: UTF8.self)
        #expect(uptime.contains("uptime_s="), "\(uptime)")

        let statuses = try await daemon.client.adapters()
        let status = try #require(statuses.first { $0.name == "python-file" })
        #expect(status.kind == "exec" && status.state == .ready)
        let program = try #require(status.program)
        #expect(program.state == .running && program.restarts == 0)
        #expect(kill(try #require(program.pid), 0) == 0, "the program runs")
        #expect(statuses.first { $0.name == "file" }?.program == nil)
    }

    @Test func repliesThatComeOutOfOrderReachTheirOwnRequests() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await Self.start(
            [
                Self.faulty(
                    "ooo", mode: "out-of-order", pidFile: directory.path("pids"),
                    extra: ["args": ["--mode", "out-of-order", "--delay-ms", "150"]])
            ])
        let demo = try DemoRecipient(in: daemon.directory)
        let results = try await withThrowingTaskGroup(of: CollectionResult.self) { group in
            for index in 0..<6 {
                group.addTask { try await daemon.client.collect(requestID: "ooo-\(index)") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 6)
        for result in results {
            let signal = try #require(result.signals.first, "\(result.errors)")
            let payload = try demo.open(signal.envelope)
            let raw = String(decoding: Data(base64Encoded: payload["signal"] as? String ?? "") ?? Data(), as: UTF8.self)
            #expect(raw == "ooo:\(result.requestID)")
        }
        try await expectCleanStop(daemon, pidFile: directory.path("pids"))
    }

    /// The program is told which app asks: the app the daemon recognized from the peer (here
    /// this test's uid, registered with its bundle and publisher), never what the client says.
    @Test func aProgramReceivesTheAskingApp() async throws {
        let config = demoConfig(
            adapters: [
                [
                    "name": "echo-request", "exec": Self.echoRequest, "recipients": ["demo"], "timeout_ms": 1000,
                    "cache_ttl_ms": 60_000,
                ]
            ],
            extra: [
                "apps": [
                    "registered": [
                        "tv.example.news": [
                            "match": ["uid": Int(getuid())], "capabilities": ["signals"],
                            "app": ["bundle": "com.example.news", "publisher": ["id": "pub-1", "name": "Example"]],
                        ]
                    ]
                ]
            ])
        let daemon = try await RunningDaemon.start(config: config)
        try await daemon.waitUntilAdaptersSettle()
        let demo = try DemoRecipient(in: daemon.directory)
        func received(_ requestID: String) async throws -> (String, Bool) {
            let result = try await daemon.client.collect(requestID: requestID)
            let signal = try #require(result.signals.first, "\(result.errors)")
            let payload = try demo.open(signal.envelope)
            let bytes = Data(base64Encoded: payload["signal"] as? String ?? "") ?? Data()
            return (String(decoding: bytes, as: UTF8.self), signal.cached)
        }
        let first = try await received("app-1")
        #expect(
            first.0
                == #"{"app":{"bundle":"com.example.news","id":"tv.example.news","publisher_id":"pub-1"},"privacy":null,"request_id":"app-1"}"#
        )
        #expect(!first.1)
        // The program's answer is the app's: served from the cache to that app again.
        #expect(try await received("app-2") == (first.0, true))
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0, "\(daemon.log)")
    }

    @Test func aCrashingProgramIsRestartedAndReapedWhileTheOthersAnswer() async throws {
        let directory = try TemporaryDirectory()
        let pids = directory.path("pids")
        let daemon = try await Self.start(
            [
                Self.faulty("crashy", mode: "crash-on-3rd", pidFile: pids, extra: ["circuit_breaker": ["failures": 0]]),
                Self.echo,
            ])
        for round in 1...3 {
            let result = try await daemon.client.collect(requestID: "c\(round)")
            #expect(result.signals.contains { $0.adapter == "test-echo" })
            if round < 3 {
                #expect(result.signals.contains { $0.adapter == "crashy" }, "\(result.errors)")
            } else {
                #expect(result.errors.map(\.code) == [.sdkUnavailable], "the 3rd request finds it exiting")
            }
        }
        // While it is down, its requests fail at once, not after the timeout: unavailable, not
        // timed out.
        let down = try await daemon.client.collect(requestID: "down")
        #expect(down.errors.first?.code == .sdkUnavailable)
        #expect(down.signals.map(\.adapter) == ["test-echo"])

        let restarted = try await eventually {
            let status = try await daemon.client.adapters().first { $0.name == "crashy" }
            return status?.program?.state == .running && status?.program?.restarts == 1 ? status : nil
        }
        #expect(restarted.program?.lastExit == "exited with status 3")
        let again = try await daemon.client.collect(requestID: "again")
        #expect(again.signals.map(\.adapter).sorted() == ["crashy", "test-echo"], "\(again.errors)")

        let started = try readPIDs(pids)
        try #require(started.count == 2)
        #expect(kill(started[0], 0) == -1 && errno == ESRCH, "the crashed program is reaped, not a zombie")
        let metrics = try await metricsText(daemon.client)
        #expect(metrics.contains(#"secure_signals_program_restarts_total{adapter="crashy"} 1"#))
        #expect(metrics.contains(#"secure_signals_program_up{adapter="crashy"} 1"#))
        #expect(try await daemon.client.health().status == "ok")
        try await expectCleanStop(daemon, pidFile: directory.path("pids"))
    }

    @Test func aHangingProgramCostsItsTimeoutThenItsCircuitOpens() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await Self.start(
            [
                Self.faulty(
                    "hangs", mode: "hang", pidFile: directory.path("pids"), timeoutMilliseconds: 100,
                    extra: ["circuit_breaker": ["failures": 3, "cool_down_ms": 60_000]]),
                Self.echo,
            ], deadlines: ["request_timeout_ms": 3000])
        for round in 1...3 {
            let result = try await daemon.client.collect(requestID: "h\(round)")
            // A hang costs its own 100 ms, not the request's 3 s deadline: its timeout says so.
            #expect(result.errors.map(\.code) == [.timeout])
            #expect(result.errors.first?.message == "no answer within 100.0 ms", "\(result.errors)")
            #expect(result.signals.map(\.adapter) == ["test-echo"])
        }
        let skipped = try await daemon.client.collect(requestID: "h4")
        #expect(skipped.errors.map(\.code) == [.circuitOpen])
        #expect(skipped.errors.first?.message.contains("3 consecutive failures") == true)
        let status = try #require(try await daemon.client.adapters().first { $0.name == "hangs" })
        #expect(status.circuit.state == .open && status.circuit.opened == 1)
        #expect(status.state == .ready, "a hanging program is not a failed adapter")
        let metrics = try await metricsText(daemon.client)
        #expect(metrics.contains(#"secure_signals_adapter_circuit_open{adapter="hangs"} 1"#))
        #expect(metrics.contains(#"secure_signals_adapter_circuit_open{adapter="test-echo"} 0"#))
        #expect(
            metrics.contains(#"secure_signals_adapter_collections_total{adapter="hangs",outcome="circuit_open"} 1"#))
        #expect(metrics.contains(#"secure_signals_adapter_collections_total{adapter="hangs",outcome="timeout"} 3"#))
        try await expectCleanStop(daemon, pidFile: directory.path("pids"))
    }

    @Test func garbageAndSecondAnswersAreCountedAndDropped() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await Self.start(
            [
                Self.faulty("garbage", mode: "garbage", pidFile: directory.path("pids")),
                Self.faulty("twice", mode: "answer-twice", pidFile: directory.path("pids")),
                Self.echo,
            ])
        let demo = try DemoRecipient(in: daemon.directory)
        for round in 1...2 {
            let result = try await daemon.client.collect(requestID: "g\(round)")
            #expect(result.errors.isEmpty, "\(result.errors)")
            #expect(result.signals.map(\.adapter).sorted() == ["garbage", "test-echo", "twice"])
            let twice = try #require(result.signals.first { $0.adapter == "twice" })
            let raw = Data(base64Encoded: try demo.open(twice.envelope)["signal"] as? String ?? "") ?? Data()
            #expect(String(decoding: raw, as: UTF8.self) == "twice:g\(round)", "the first answer counts")
        }
        let statuses = try await eventually {
            let statuses = try await daemon.client.adapters()
            let twice = statuses.first { $0.name == "twice" }?.program?.unmatchedReplies
            return twice == 2 ? statuses : nil
        }
        let garbage = try #require(statuses.first { $0.name == "garbage" }?.program)
        // Per request: two lines that are not JSON, one too long, two JSON lines that are no
        // reply, and one reply to an id nobody asked for.
        #expect(garbage.droppedLines == 10 && garbage.unmatchedReplies == 2)
        #expect(garbage.restarts == 0 && garbage.state == .running)
        let metrics = try await metricsText(daemon.client)
        for (reason, count) in [("not_json", 4), ("too_long", 2), ("not_a_reply", 4)] {
            #expect(
                metrics.contains(
                    #"secure_signals_program_dropped_lines_total{adapter="garbage",reason="\#(reason)"} \#(count)"#),
                "\(reason)")
        }
        #expect(metrics.contains(#"secure_signals_program_unmatched_replies_total{adapter="twice"} 2"#))
        #expect(!daemon.log.contains("xxxxxxxx"), "what a program writes on stdout never reaches the log")
        for signal in ["garbage:g1", "twice:g1", "second"] {
            #expect(!daemon.log.contains(Data(signal.utf8).base64EncodedString()), "a signal reached the log")
        }
        #expect(!daemon.log.contains("garbage:g1") && !daemon.log.contains("twice:g1"))
        try await expectCleanStop(daemon, pidFile: directory.path("pids"))
    }

    @Test func aProgramThatStopsReadingNeverBlocksTheDaemon() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await Self.start(
            [
                Self.faulty(
                    "deaf", mode: "no-read", pidFile: directory.path("pids"), timeoutMilliseconds: 20,
                    extra: ["circuit_breaker": ["failures": 0]]),
                Self.echo,
            ], deadlines: ["request_timeout_ms": 3000])
        // Requests of about 330 bytes each: 64 KiB of pipe is full after some 200 of them. Each is
        // answered by the echo program, and ended for the deaf one by its own 20 ms timeout, not
        // by the request's 3 s: nothing waits on the full pipe (which timeout ended the wait is
        // what is asserted, not how long it took on a busy machine).
        let padding = String(repeating: "p", count: 240)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<4 {
                group.addTask {
                    for index in 0..<100 {
                        let result = try await daemon.client.collect(requestID: "\(padding)-\(lane)-\(index)")
                        guard result.signals.map(\.adapter) == ["test-echo"],
                            result.errors.map(\.code) == [.timeout],
                            result.errors.first?.message == "no answer within 20.0 ms"
                        else { throw DaemonFailure("request \(lane)-\(index): \(result)") }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await daemon.client.health().status == "ok")
        let status = try #require(try await daemon.client.adapters().first { $0.name == "deaf" })
        #expect(status.program?.state == .running)
        try await expectCleanStop(daemon, pidFile: directory.path("pids"))
    }

    @Test func programsThatNeverInitializeFailWithTheReason() async throws {
        let directory = try TemporaryDirectory()
        let pids = directory.path("pids")
        let daemon = try await Self.start(
            [
                Self.faulty("exits", mode: "exit-during-init", pidFile: pids),
                Self.faulty("refuses", mode: "init-error", pidFile: pids),
                Self.faulty("silent", mode: "never-init", pidFile: pids, extra: ["init_timeout_ms": 2000]),
                Self.echo,
            ])
        let statuses = try await eventually {
            let statuses = try await daemon.client.adapters()
            return statuses.allSatisfy { $0.state == .ready || $0.state == .failed } ? statuses : nil
        }
        func status(_ name: String) throws -> AdapterStatus { try #require(statuses.first { $0.name == name }) }
        let exits = try status("exits").description
        #expect(
            exits
                == "adapter_init_failed: the program exited with status 2 before it answered initialize (its last stderr line: cannot load the SDK)"
        )
        #expect(try status("refuses").description == "sdk_unavailable: no SDK on this device")
        #expect(try status("silent").description.contains("no answer to initialize within 2000 ms"))
        for name in ["exits", "refuses", "silent"] {
            #expect(try status(name).state == .failed)
            #expect(try status(name).program == nil, "no program runs for it")
        }
        let result = try await daemon.client.collect(requestID: "after")
        #expect(result.signals.map(\.adapter) == ["test-echo"])
        #expect(Set(result.errors.map(\.adapter)) == ["exits", "refuses", "silent"])
        // The one that never answered was stopped, not left running.
        let started = try readPIDs(pids)
        #expect(started.count == 3)
        for pid in started { #expect(kill(pid, 0) == -1, "pid \(pid) is gone") }
        #expect(try await daemon.client.health().status == "ok")
        try await expectCleanStop(daemon, pidFile: directory.path("pids"))
    }

    @Test func aFloodOfStderrIsLoggedAtABoundedRate() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await Self.start(
            [
                Self.faulty("noisy", mode: "flood-stderr", pidFile: directory.path("pids")), Self.echo,
            ])
        for round in 1...3 {
            let result = try await daemon.client.collect(requestID: "n\(round)")
            #expect(result.errors.isEmpty, "\(result.errors)")
        }
        let status = try await eventually {
            let program = try await daemon.client.adapters().first { $0.name == "noisy" }?.program
            return (program?.suppressedStderrLines ?? 0) > 10_000 ? program : nil
        }
        #expect(status.state == .running)
        let logged = daemon.log.split(separator: "\n").filter { $0.contains("noise ") }.count
        #expect(logged > 0 && logged < 200, "\(logged) stderr lines logged of 20000")
        #expect(daemon.log.contains("over its log rate; leaving lines out"))
        let metrics = try await metricsText(daemon.client)
        #expect(metrics.contains(#"secure_signals_program_stderr_lines_total{adapter="noisy",outcome="suppressed"}"#))
        try await expectCleanStop(daemon, pidFile: directory.path("pids"))
    }

    /// A daemon killed outside systemd (no cgroup to stop its programs) leaves a program that
    /// ignores the end of its input running; the next start stops it before it starts the
    /// adapter again, so that one copy runs, not two.
    @Test func aProgramAKilledDaemonLeftRunningIsStoppedAtTheNextStart() async throws {
        let directory = try TemporaryDirectory()
        let pids = directory.path("pids")
        let stubborn = Self.faulty("stubborn", mode: "ignore-sigterm", pidFile: pids)
        var config = demoConfig(adapters: [stubborn])
        config["state_directory"] = directory.path("state")
        let first = try await RunningDaemon.start(config: config)
        try await first.waitUntilAdaptersSettle()
        let left = try #require(try readPIDs(pids).first)
        first.send(SIGKILL)
        _ = await first.waitForExit()
        #expect(kill(left, 0) == 0, "the killed daemon's program runs on")

        let second = try await RunningDaemon.start(config: config)
        try await second.waitUntilAdaptersSettle()
        _ = try await eventually { kill(left, 0) == -1 || Self.isZombie(left) ? true : nil }
        #expect(second.log.contains("stopping the adapter program a previous daemon left running"))
        #expect(try readPIDs(pids).count == 2, "the second daemon runs its own copy")
        #expect(try await second.client.adapters().first?.state == .ready)
        // A program that is down makes health fail, and says which.
        kill(try #require(try readPIDs(pids).last), SIGKILL)
        let health = try await eventually {
            let run = try await Binary.run("secure-signals", ["health", "--socket", second.socketPath])
            return run.status == 1 ? run : nil
        }
        #expect(
            health.stdoutText.contains("not ready: stubborn (exec): its program is restarting"), "\(health.stdoutText)")

        // A reload that makes a new host for the adapter: the old one stops its own program,
        // which the new one does not take for a leftover.
        var changed = Self.faulty("stubborn", mode: "ignore-sigterm", pidFile: pids, extra: ["stop_grace_ms": 300])
        changed["args"] = (changed["args"] as? [String] ?? []) + ["--delay-ms", "5"]
        var reloaded = demoConfig(adapters: [changed])
        reloaded["state_directory"] = directory.path("state")
        reloaded["socket"] = ["path": second.socketPath]
        try JSONSerialization.data(withJSONObject: reloaded).write(to: URL(fileURLWithPath: second.configPath))
        _ = try await eventually { try readPIDs(pids).count >= 3 ? true : nil }
        second.send(SIGHUP)
        _ = try await eventually { try readPIDs(pids).count >= 4 ? true : nil }
        #expect(
            second.log.components(separatedBy: "a previous daemon left running").count == 2,
            "only the first daemon's program was a leftover: \(second.log)")
        second.send(SIGTERM)
        #expect(await second.waitForExit() == 0)
    }

    /// Whether `pid` is a zombie: killed, and not yet reaped by whoever adopted it.
    static func isZombie(_ pid: Int32) -> Bool {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") == true
    }

    @Test func noProgramOutlivesTheDaemonOrItsRemovalByReload() async throws {
        let directory = try TemporaryDirectory()
        let pids = directory.path("pids")
        let removedPIDs = directory.path("removed-pids")
        let stubborn = Self.faulty(
            "stubborn", mode: "ignore-sigterm", pidFile: pids, extra: ["stop_grace_ms": 300])
        let parent = Self.faulty("parent", mode: "spawn-child", pidFile: pids)
        let removed = Self.faulty("removed", mode: "ok", pidFile: removedPIDs)
        let daemon = try await Self.start([stubborn, parent, removed])
        _ = try await eventually { try await daemon.client.adapters().allSatisfy { $0.state == .ready } ? true : nil }
        let removedPID = try #require(try readPIDs(removedPIDs).first)

        // A reload without "removed" stops its program.
        let config = demoConfig(adapters: [stubborn, parent]).merging([
            "socket": ["path": daemon.socketPath], "state_directory": daemon.directory.path("state"),
        ]) { $1 }
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: daemon.configPath))
        daemon.send(SIGHUP)
        _ = try await eventually { kill(removedPID, 0) == -1 ? true : nil }
        #expect(try await daemon.client.adapters().map(\.name) == ["stubborn", "parent"])

        let running = try readPIDs(pids)
        #expect(running.count == 3, "stubborn, parent, and the parent's own child")
        for pid in running { #expect(kill(pid, 0) == 0, "pid \(pid) of \(running) runs: \(daemon.log)") }
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0, "\(daemon.log)")
        for pid in running {
            var status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            if status.contains("Name:\tsleep") {
                // The grandchild is killed with its group; reaping it falls to pid 1, which in
                // some containers never does, so a zombie there is dead enough.
                status =
                    (try? await eventually(timeout: .seconds(2)) {
                        let now = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
                        return now.isEmpty || now.contains("State:\tZ") ? now : nil
                    }) ?? status
                #expect(status.isEmpty || status.contains("State:\tZ"), "the grandchild \(pid) runs on")
            } else {
                #expect(kill(pid, 0) == -1 && errno == ESRCH, "pid \(pid) outlived the daemon: \(status)")
            }
        }
    }

    /// A program's child that leaves its process group (setsid) is out of reach of the signal to
    /// the group; the daemon, its subreaper, stops and reaps it all the same.
    @Test func aDescendantThatLeftTheProcessGroupIsStoppedAndReaped() async throws {
        let directory = try TemporaryDirectory()
        let pids = directory.path("pids")
        let daemon = try await Self.start([Self.faulty("escaper", mode: "spawn-escapee", pidFile: pids)])
        _ = try await eventually { try readPIDs(pids).count == 2 ? true : nil }
        let escapee = try #require(try readPIDs(pids).last)
        #expect(kill(escapee, 0) == 0)
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0, "\(daemon.log)")
        let status = (try? String(contentsOfFile: "/proc/\(escapee)/status", encoding: .utf8)) ?? ""
        #expect(status.isEmpty, "the escapee \(escapee) outlived the daemon: \(status)")
        #expect(daemon.log.contains("stopped 1 leftover process"), "\(daemon.log)")
    }

    /// An escapee whose program died is the daemon's child now; when it exits, the daemon
    /// reaps it while it runs (every 10 s; the testbed's every 200 ms), leaving no zombie.
    @Test func anAdoptedOrphanThatExitsIsReapedWhileTheDaemonRuns() async throws {
        let directory = try TemporaryDirectory()
        let pids = directory.path("pids")
        let daemon = try await Self.start([Self.faulty("escaper", mode: "spawn-escapee", pidFile: pids)])
        let started = try await eventually { (try? readPIDs(pids)).flatMap { $0.count >= 2 ? $0 : nil } }
        let (program, escapee) = (started[0], started[1])
        kill(program, SIGKILL)
        _ = try await eventually { Self.parent(of: escapee) == daemon.pid ? true : nil }
        kill(escapee, SIGKILL)
        _ = try await eventually { Self.parent(of: escapee) == nil ? true : nil }
        #expect(kill(daemon.pid, 0) == 0, "the daemon runs on")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0, "\(daemon.log)")
    }

    /// The parent pid of `pid` while it exists (a zombie too), from /proc.
    private static func parent(of pid: pid_t) -> pid_t? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }

    @Test func aStopSendsSIGTERMAndGivesTheGracePeriod() async throws {
        let directory = try TemporaryDirectory()
        let marker = directory.path("marker")
        let daemon = try await Self.start([
            Self.faulty(
                "graceful", mode: "graceful", pidFile: directory.path("pids"),
                extra: ["args": ["--mode", "graceful", "--marker", marker], "stop_grace_ms": 3000])
        ])
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        let said = (try? String(contentsOfFile: marker, encoding: .utf8)) ?? ""
        #expect(said == "TERM\nDONE\n", "the program had its SIGTERM and its 300 ms to clean up: \(daemon.log)")
    }

    @Test func aStopWhileAProgramInitializesStopsTheProgram() async throws {
        let directory = try TemporaryDirectory()
        let pids = directory.path("pids")
        let daemon = try await RunningDaemon.start(
            config: demoConfig(adapters: [
                Self.faulty("slow", mode: "never-init", pidFile: pids, extra: ["init_timeout_ms": 60_000])
            ]))
        let pid = try await eventually { try? readPIDs(pids).first }
        let status = try await daemon.client.adapters().first
        #expect(status?.state == .initializing)
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "the initializing program was stopped and reaped")
    }

    @Test func aReloadGivesAFailedProgramAnotherInit() async throws {
        let directory = try TemporaryDirectory()
        let pids = directory.path("pids")
        let daemon = try await Self.start([Self.faulty("flaky", mode: "exit-during-init", pidFile: pids), Self.echo])
        #expect(try await daemon.client.adapters().first { $0.name == "flaky" }?.state == .failed)
        daemon.send(SIGHUP)
        let started = try await eventually { try readPIDs(pids).count == 2 ? true : nil }
        #expect(started, "the reload started the failed program again")
        #expect(try await daemon.client.adapters().first { $0.name == "test-echo" }?.state == .ready)
    }

    @Test func checkConfigNamesABadProgramEntry() async throws {
        let directory = try TemporaryDirectory()
        try Data("not a program".utf8).write(to: URL(fileURLWithPath: directory.path("plain.txt")))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: directory.path("plain.txt"))
        let cases: [(String, String)] = [
            (
                #"{"adapters": [{"name": "p", "exec": "/nonexistent/adapter"}]}"#,
                "adapters[0].exec: /nonexistent/adapter does not exist"
            ),
            (
                #"{"adapters": [{"name": "p", "exec": "plain.txt"}]}"#,
                "adapters[0].exec: \(directory.path("plain.txt")) is not an executable file"
            ),
            (
                #"{"adapters": [{"name": "p", "type": "file", "exec": "/bin/true"}]}"#,
                "adapters[0].exec: an adapter is either"
            ),
            (#"{"adapters": [{"name": "file", "args": ["x"]}]}"#, "adapters[0].args: only applies with \"exec\""),
            (#"{"circuit_breaker": {"failures": -1}}"#, "circuit_breaker.failures: must be between 0"),
            (
                #"{"adapters": [{"name": "p", "exec": "/bin/true", "stop_grace_ms": 60000}]}"#,
                "adapters[0].stop_grace_ms: must be between 0 and 10000"
            ),
            (
                #"{"adapters": [{"name": "p", "exec": "/bin/true", "env": {"A=B": "c"}}]}"#,
                "adapters[0].env: \"A=B\" cannot be set"
            ),
        ]
        try await expectCheckConfigRefuses(cases, in: directory)
        let good = directory.path("good.json")
        try #"{"adapters": [{"name": "p", "exec": "/bin/true", "args": ["a"]}]}"#.write(
            toFile: good, atomically: true, encoding: .utf8)
        let result = try await Binary.run("secure-signalsd", ["--config", good, "--check-config"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("adapter       p (exec /bin/true)"))
    }
}

/// Stops the daemon with SIGTERM; expects it to exit 0 and to leave none of the programs in
/// `pidFile` behind, reaped or not.
func expectCleanStop(_ daemon: RunningDaemon, pidFile: String) async throws {
    let pids = (try? readPIDs(pidFile)) ?? []
    daemon.send(SIGTERM)
    #expect(await daemon.waitForExit() == 0, "\(daemon.log)")
    for pid in pids { #expect(kill(pid, 0) == -1 && errno == ESRCH, "program \(pid) outlived the daemon") }
}

/// The pids a faulty_adapter.py wrote, one per line.
func readPIDs(_ file: String) throws -> [Int32] {
    try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").compactMap { Int32($0) }
}
