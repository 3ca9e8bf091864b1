import Bench
import Foundation
import SharedTypes
import TestSupport
import Testing

/// The daemon and its open-file limit: the limit judged against `max_connections`, raised at
/// start, and reached (lowered under a running daemon) without spinning or dying.
@Suite(.serialized)
struct DescriptorLimitTests {
    /// `max_connections` above what the hard open-file limit allows is a configuration error
    /// naming the limit, found by `--check-config`: at that limit the daemon could accept no
    /// more. A lower soft limit is no error: the daemon raises it at start.
    @Test(.enabled(if: Binary.onPath("prlimit") != nil, "needs prlimit"))
    func maxConnectionsAboveTheOpenFileLimitIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("daemon.json")
        for (connections, nofile, status) in [(256, "256:256", Int32(78)), (192, "256:256", 0), (256, "64:4096", 0)] {
            let config = demoConfig(
                adapters: [["name": "device-context", "recipients": ["demo"]]],
                extra: ["limits": ["max_connections": connections, "max_connections_per_peer": 8]])
            try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: file))
            let result = try await Binary.runProgram(
                try #require(Binary.onPath("prlimit")),
                ["--nofile=\(nofile)", Binary.path("secure-signalsd"), "--config", file, "--check-config"])
            #expect(result.status == status, "\(connections) at \(nofile): \(result.stderr)")
            if status == 78 {
                #expect(
                    result.stderr.contains(
                        "limits.max_connections: 256 is more than this process's open-file limit allows: its hard limit is 256 "
                            + "(RLIMIT_NOFILE; LimitNOFILE= in a systemd unit), of which 64 are kept"),
                    "\(result.stderr)")
            }
        }
    }

    /// Started with a low soft open-file limit, the daemon raises it to 4096, or to what its
    /// connections need when that is more, never past the hard limit.
    @Test(.enabled(if: Binary.onPath("prlimit") != nil, "needs prlimit"))
    func theDaemonRaisesItsSoftOpenFileLimit() async throws {
        // (max_connections, the limit it is started with, the soft limit it then holds)
        for (connections, nofile, soft) in [
            (256, "64:8192", "4096"), (5000, "64:10000", "5064"), (128, "64:256", "256"),
        ] {
            let daemon = try await RunningDaemon.start(
                config: demoConfig(
                    adapters: [["name": "device-context", "recipients": ["demo"]]],
                    extra: ["limits": ["max_connections": connections, "max_connections_per_peer": 8]]),
                launcher: [try #require(Binary.onPath("prlimit")), "--nofile=\(nofile)"])
            let limits = try String(contentsOfFile: "/proc/\(daemon.pid)/limits", encoding: .utf8)
            let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
            let hard = String(nofile.split(separator: ":")[1])
            #expect(
                line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).prefix(2).map(String.init)
                    == [soft, hard],
                "\(connections) connections at \(nofile): \(line)")
        }
    }

    /// Out of file descriptors (its limit lowered under it), the daemon pauses accepting and
    /// says so, instead of spinning a core on accept's failures; it serves again once
    /// connections close.
    @Test(.enabled(if: Binary.onPath("prlimit") != nil, "needs prlimit"))
    func outOfDescriptorsTheAcceptLoopPausesAndSaysSo() async throws {
        let (daemon, connections) = try await Self.daemonAtItsDescriptorLimit()
        let before = try #require(ProcessFootprint.of(daemon.pid), "the daemon is gone:\n\(daemon.log)").cpuSeconds
        try await Task.sleep(for: .seconds(2))
        let spent =
            try #require(ProcessFootprint.of(daemon.pid), "the daemon is gone:\n\(daemon.log)").cpuSeconds - before
        // Spinning takes a core (1.5-2 s of CPU in these 2 s, measured); paused, next to none.
        #expect(spent < 0.5, "\(spent) s of CPU in 2 s at the limit: the accept loop spins")
        for connection in connections { await connection.close() }
        _ = try await eventually { try? await daemon.client.health().status == "ok" ? true : nil }
    }

    /// Out of file descriptors while it answers, the daemon stays up and answers what it
    /// accepted. Swift's executor on Linux is libdispatch's, whose pool monitor opens
    /// /proc/TID/stat each second while work waits and aborts the process when that open fails:
    /// before the daemon kept descriptors in reserve, it died of SIGILL within 5 s in 3 of 6
    /// such runs of a release build on a loaded machine.
    @Test(.enabled(if: Binary.onPath("prlimit") != nil, "needs prlimit"))
    func outOfDescriptorsWhileAnsweringTheDaemonStaysUp() async throws {
        let (daemon, connections) = try await Self.daemonAtItsDescriptorLimit()
        // Those it accepted answer; the others' requests wait in their sockets, and only one is
        // sent on each, so that no write blocks on a socket nobody reads.
        for connection in connections { try await connection.send(Self.signalsRequest) }
        _ = try await eventually { connections.contains { !$0.bytes.isEmpty } ? true : nil }
        // At most 16 kept busy: one request in flight on each, under the 32 one peer may have.
        let accepted = Array(connections.filter { !$0.bytes.isEmpty }.prefix(16))
        let before = accepted.map { Self.answers(in: $0.text) }
        let clock = ContinuousClock()
        let end = clock.now + .seconds(5)
        while clock.now < end, ProcessFootprint.of(daemon.pid) != nil {
            for connection in accepted { try await connection.send(Self.signalsRequest) }
            try await clock.sleep(for: .milliseconds(10))
        }
        #expect(
            ProcessFootprint.of(daemon.pid) != nil,
            "the daemon died at its descriptor limit:\n\(daemon.log.suffix(2000))")
        let after = accepted.map { Self.answers(in: $0.text) }
        #expect(zip(before, after).allSatisfy { $1 > $0 }, "answered all along: \(before) then \(after)")
        for connection in connections { await connection.close() }
        _ = try await eventually { try? await daemon.client.health().status == "ok" ? true : nil }
    }

    /// How many 200 answers `text` holds.
    static func answers(in text: String) -> Int { text.components(separatedBy: "HTTP/1.1 200 ").count - 1 }

    /// A signals request, sealed for the demo recipient, on the wire.
    static let signalsRequest =
        "POST /v1/signals HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 22\r\n\r\n"
        + #"{"request_id": "ad-1"}"#

    /// A daemon whose open-file limit was lowered under it to 40 more than it holds (what it
    /// holds depends on the machine: NIO takes three per core), holding 80 connections of the
    /// test's (one peer may hold them all), once it says it cannot accept more.
    static func daemonAtItsDescriptorLimit() async throws -> (RunningDaemon, [RawConnection]) {
        let daemon = try await RunningDaemon.start(
            config: demoConfig(
                adapters: [["name": "device-context", "recipients": ["demo"]]],
                extra: ["limits": ["max_connections_per_peer": 256]]))
        let limit = try #require(ProcessFootprint.of(daemon.pid)).openDescriptors + 40
        let lowered = try await Binary.runProgram(
            try #require(Binary.onPath("prlimit")), ["--pid", "\(daemon.pid)", "--nofile=\(limit):\(limit)"])
        #expect(lowered.status == 0, "\(lowered.stderr)")
        var connections: [RawConnection] = []
        for _ in 0..<80 { connections.append(try await RawConnection.open(daemon.socketPath)) }
        _ = try await eventually { daemon.log.contains("cannot accept connections; pausing accepts") ? true : nil }
        return (daemon, connections)
    }
}
