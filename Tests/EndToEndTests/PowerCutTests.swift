import Bench
import Client
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Power cuts, as near as a test gets to them: the daemon's state directory on
/// `../shared/tools/lossyfs.py`, a FUSE file system that keeps every write in memory until it
/// is fsynced. Killing it with SIGKILL loses whatever no sync covered, as a power cut would;
/// the daemon is killed with it, under load. After each cut the file system is mounted again
/// over what reached the disk, and at the end every tracker ping the daemon acknowledged must
/// arrive.
@Suite(.serialized)
struct PowerCutTests: MediationScenario {
    /// The lossy file system over a backing directory, mounted at a state directory.
    final class LossyMount: @unchecked Sendable {
        static let tool = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/tools/lossyfs.py")
            .path

        /// Root (to mount), the tool, Debian's python3-fusepy (its module is `fusepy`, which a
        /// shim names `fuse` for the tool) and fuse3's fusermount.
        static var available: Bool {
            getuid() == 0 && FileManager.default.fileExists(atPath: tool)
                && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/fusepy.py")
                && Binary.onPath("fusermount") != nil
        }

        let scratch: TemporaryDirectory
        let backing: String
        let mountpoint: String
        private var process: ChildProcess?

        init() throws {
            scratch = try TemporaryDirectory()
            backing = scratch.path("backing")
            mountpoint = scratch.path("state")
            for directory in [backing, mountpoint, scratch.path("shim")] {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            try "from fusepy import *\n".write(toFile: scratch.path("shim/fuse.py"), atomically: true, encoding: .utf8)
        }

        /// Mounts it and waits until the kernel shows the mount.
        func mount() async throws {
            process = try await ChildProcess.start(
                "/usr/bin/python3", [Self.tool, backing, mountpoint],
                environment: ["PYTHONPATH": scratch.path("shim"), "PATH": "/usr/bin:/bin"])
            _ = try await eventually {
                ((try? String(contentsOfFile: "/proc/mounts", encoding: .utf8)) ?? "").contains(" \(self.mountpoint) ")
                    ? true : nil
            }
        }

        /// The power cut: the file system dies with its unsynced writes; then it is unmounted.
        func cut() async {
            process?.send(SIGKILL)
            _ = try? await Binary.runProgram("/bin/umount", ["-l", mountpoint])
            process = nil
        }

    }

    static func config(_ server: FakeAdServer, state: String) -> [String: Any] {
        var config = DurabilityTests.config(units: [
            native: unit(
                "native",
                [testItem(native, ["impression_tracker": server.url("/imp"), "click_tracker": server.url("/clk")])])
        ])
        config["state_directory"] = state
        return config
    }

    @Test(.enabled(if: LossyMount.available, "needs root, ../shared/tools/lossyfs.py, python3-fusepy and fuse3"))
    func powerCutsUnderLoadLoseNothingTheDaemonAcknowledged() async throws {
        let server = try await FakeAdServer()
        server.answer("/imp", .init(status: 503))
        server.answer("/clk", .init(status: 503))
        let disk = try LossyMount()
        var acknowledged = (impressions: 0, clicks: 0)
        for _ in 0..<5 {
            try await disk.mount()
            let daemon = try await RunningDaemon.start(config: Self.config(server, state: disk.mountpoint))
            let client = daemon.client
            let load = Task {
                var done = (0, 0)
                while !Task.isCancelled {
                    let one = await DurabilityTests.impressionAndClick(client)
                    done.0 += one.impressions
                    done.1 += one.clicks
                    if one == (0, 0), !isListening(daemon.socketPath) { break }
                }
                return done
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 300...800)))
            // The file system first: nothing the daemon acknowledges after it can be synced.
            await disk.cut()
            daemon.send(SIGKILL)
            #expect(await daemon.waitForExit() != nil)
            load.cancel()
            let done = await load.value
            acknowledged.impressions += done.0
            acknowledged.clicks += done.1
        }
        #expect(acknowledged.impressions > 0, "the load hardly ran")
        let refused = (server.requests("/imp").count, server.requests("/clk").count)
        server.answer("/imp", .init(status: 204))
        server.answer("/clk", .init(status: 204))
        try await disk.mount()
        let daemon = try await RunningDaemon.start(config: Self.config(server, state: disk.mountpoint))
        #expect(try await Self.post(daemon.client, "/testbed/clock", ["advance_ms": 3_600_000]).status == 200)
        _ = try await eventually(timeout: .seconds(60)) {
            try await metricValue("secure_signals_tracker_outbox_pings", in: daemon.client) == 0 ? true : nil
        }
        let arrived = (server.requests("/imp").count - refused.0, server.requests("/clk").count - refused.1)
        #expect(arrived.0 >= acknowledged.impressions, "\(arrived) arrived of \(acknowledged) acknowledged")
        #expect(arrived.1 >= acknowledged.clicks, "\(arrived) arrived of \(acknowledged) acknowledged")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        await disk.cut()
    }
}
