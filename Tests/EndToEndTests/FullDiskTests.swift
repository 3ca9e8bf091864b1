import Bench
import Client
import Foundation
import SharedTypes
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon binary with its state directory on a small tmpfs that the test fills: signals
/// keep answering, what needs a commit is refused up front and not applied (no win notice goes
/// for a refused load), health says degraded, and everything resumes by itself when space
/// returns. Mounting a tmpfs needs root, as CI runs.
@Suite(.serialized)
struct FullDiskTests: MediationScenario {
    static let unit = "/openrtb/native"

    /// A bid response with one native bid whose win notice is `/win` on `server`.
    static func bid(_ server: FakeAdServer) throws -> [UInt8] {
        let native: [String: Any] = [
            "ver": "1.2", "link": ["url": "https://example.com/go"], "assets": [["id": 1, "title": ["text": "Ad"]]],
        ]
        let adm = String(decoding: try JSONSerialization.data(withJSONObject: native), as: UTF8.self)
        let response: [String: Any] = [
            "id": "r", "cur": "USD",
            "seatbid": [
                [
                    "seat": "s",
                    "bid": [["id": "b", "impid": "1", "price": 2, "mtype": 4, "adm": adm, "nurl": server.url("/win")]],
                ]
            ],
        ]
        return Array(try JSONSerialization.data(withJSONObject: response))
    }

    /// Mounts a tmpfs of `size` at `path` (`options` more, such as `ro`); whether it worked.
    static func mountTmpfs(at path: String, size: String, options: String = "") async throws -> Bool {
        let all = "size=\(size)" + (options.isEmpty ? "" : ",\(options)")
        return try await Binary.runProgram("/bin/mount", ["-t", "tmpfs", "-o", all, "tmpfs", path]).status == 0
    }

    static func unmount(_ path: String) async {
        _ = try? await Binary.runProgram("/bin/umount", ["-l", path])
    }

    /// The same, from a `defer` (which cannot await): a failed check must not leave it mounted.
    /// The system call itself, as `umount -l` makes it: no program to wait for.
    static func unmountNow(_ path: String) {
        _ = umount2(path, Int32(MNT_DETACH))
    }

    /// Writes zeroes to `path` until the file system has no room left.
    static func fill(_ path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0, count: 4096)
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func aFullDiskRefusesWhatNeedsACommitKeepsTheSignalsAndResumesWhenSpaceReturns() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        server.answer("/bid", .init(body: try Self.bid(server)))
        let scratch = try TemporaryDirectory()
        let state = scratch.path("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try #require(try await Self.mountTmpfs(at: state, size: "2m"))
        defer { Self.unmountNow(state) }

        var config = demoConfig(
            adapters: [["name": "device-context", "recipients": ["demo"]]],
            extra: [
                "ad_units": [
                    Self.unit: [
                        "format": "native",
                        "waterfall": [
                            [
                                "network": "openrtb", "parameter": "tag", "timeout_ms": 2000,
                                "options": ["endpoint": server.url("/bid")],
                            ]
                        ],
                    ]
                ]
            ])
        config["state_directory"] = state
        let daemon = try await RunningDaemon.start(config: config, logLevel: "info")
        let client = daemon.client
        let signals: [String: Any] = ["request_id": "r"]
        func load() async throws -> (status: UInt, json: [String: Any]) {
            try await Self.post(client, "/v1/ads", ["ad_unit": Self.unit, "format": "native", "force": true])
        }
        #expect(try await load().status == 200)
        _ = try await eventually { server.requests("/win").count == 1 ? true : nil }

        let filler = state + "/filler"
        Self.fill(filler)
        // The write-ahead log may still have room for a few commits: load until one is refused.
        var refused = false
        for _ in 0..<200 where !refused {
            let answer = try await load()
            refused = answer.status == 503
            if refused { #expect(Self.errorCode(answer.json) == "state_unavailable") }
        }
        #expect(refused, "a commit failed on the full disk")

        // Signals never wait for the ledger.
        for _ in 0..<20 {
            #expect(try await Self.post(client, "/v1/signals", signals).status == 200)
        }
        // Loads are refused up front: no auction is run, no win notice goes.
        let bids = server.requests("/bid").count
        for _ in 0..<5 {
            let answer = try await load()
            #expect(answer.status == 503 && Self.errorCode(answer.json) == "state_unavailable")
        }
        #expect(server.requests("/bid").count == bids, "no auction for a refused load")
        // A privacy change is kept before it is in force: the disk does not take it, so it is
        // refused, and the state in force stays.
        let privacy = Data(#"{"privacy": {"limit_ad_tracking": true}}"#.utf8)
        let change = try await client.request(.PUT, "/v1/privacy", json: privacy)
        #expect(change.status == 503 && change.apiError?.code == "state_unavailable")
        #expect(try await client.request(.GET, "/v1/privacy").body == Data("{\"privacy\":null}\n".utf8))
        let health = try await client.health()
        #expect(health.status == "degraded")
        #expect(health.warnings.contains { $0.contains("the state database takes no commits") })

        // The log says so (within the watch's second), and says it once a minute at most.
        _ = try await eventually { daemon.log.contains("takes no commits for") ? true : nil }

        // Space returns: the daemon finds out by itself, and serves again.
        try FileManager.default.removeItem(atPath: filler)
        _ = try await eventually { try await client.health().status == "ok" ? true : nil }
        #expect(try await load().status == 200)
        #expect(try await client.request(.PUT, "/v1/privacy", json: privacy).status == 200)
        // Every auction run kept its ad and owes one win notice: the load that met the failure
        // was applied (its notice goes once the disk takes it), and no auction ran for the
        // loads refused up front, so none is owed for them.
        _ = try await eventually {
            server.requests("/win").count == server.requests("/bid").count ? true : nil
        }
        #expect(server.requests("/bid").count == bids + 1)
        _ = try await eventually { daemon.log.contains("the state database takes commits again") ? true : nil }
        // Once a minute at most: one report of the outage, however many calls it refused.
        let reports = daemon.log.components(separatedBy: "takes no commits for").count - 1
        #expect(reports == 1, "\(daemon.log)")
        #expect(server.requests("/win").count == server.requests("/bid").count, "one notice an auction, no more")
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()
    }

    /// A 0-byte `state.sqlite` is refused (exit 78, one line), never taken as a new database;
    /// `--check-config` says so too, and says when this user could not write the file.
    @Test func anEmptyStateFileIsRefusedAndAnImmutableOneByCheckConfig() async throws {
        let scratch = try TemporaryDirectory()
        let state = scratch.path("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: state + "/state.sqlite", contents: Data()))
        var config = demoConfig(adapters: [["name": "device-context", "recipients": ["demo"]]])
        config["state_directory"] = state
        let file = scratch.path("daemon.json")
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: file))
        let check = try await Binary.run("secure-signalsd", ["--config", file, "--check-config"])
        #expect(check.status == 78)
        #expect(check.stderr.contains("state.sqlite is empty (0 bytes)"), "\(check.stderr)")
        #expect(check.stderr.split(separator: "\n").count == 1)
        let start = try await RunningDaemon(config: config)
        #expect(await start.waitForExit() == 78)
        #expect(start.log.contains("is empty (0 bytes)"))
        #expect((try FileManager.default.attributesOfItem(atPath: state + "/state.sqlite")[.size] as? Int) == 0)

        // An immutable file (root passes mode bits, not this): the daemon could not open it.
        guard getuid() == 0 else { return }
        let path = state + "/state.sqlite"
        try FileManager.default.removeItem(atPath: path)
        let made = try await RunningDaemon.start(config: config)
        made.send(SIGTERM)
        #expect(await made.waitForExit() == 0)
        try #require(try await Binary.runProgram("/usr/bin/chattr", ["+i", path]).status == 0)
        // Made mutable again whatever the check does (a `defer` cannot await the program).
        let refused: Binary.Result
        do {
            refused = try await Binary.run("secure-signalsd", ["--config", file, "--check-config"])
        } catch {
            _ = try? await Binary.runProgram("/usr/bin/chattr", ["-i", path])
            throw error
        }
        _ = try await Binary.runProgram("/usr/bin/chattr", ["-i", path])
        #expect(refused.status == 78)
        #expect(
            refused.stderr.contains("cannot be opened for writing: the file is not writable by this user"),
            "\(refused.stderr)")
    }
}
