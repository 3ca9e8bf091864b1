import Bench
import Foundation
import SharedTypes
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The connection caps cannot be used against other apps: apps under other uids (started with
/// `setpriv`, as CI runs as root) each holding all the connections they may leave room for
/// another app and for root.
@Suite(.serialized)
struct FairCapTests {
    /// Opens `count` connections to `socket`, asks health on each, prints the status each got
    /// (`no-answer` when none came), then holds them until it is killed.
    static let holder = """
        import signal, socket, sys
        path, count = sys.argv[1], int(sys.argv[2])
        held, codes = [], []
        for _ in range(count):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            try:
                s.sendall(b"GET /v1/health HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
            except OSError:
                pass  # a refused connection may be answered and closed before the request is read
            try:
                answer = s.recv(65536)
            except OSError:
                answer = b""
            codes.append(answer.split(b" ")[1].decode() if answer.count(b" ") else "no-answer")
            held.append(s)
        print(" ".join(codes), flush=True)
        signal.pause()
        """

    /// Root (CI is), setpriv and python3: what starting apps under other uids takes.
    static var canActAsApps: Bool {
        getuid() == 0 && Binary.onPath("setpriv") != nil && Binary.onPath("curl") != nil
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
    }

    /// The four apps' uids; 65534 is a fifth.
    static let apps = [65_530, 65_531, 65_532, 65_533]

    /// A daemon the apps (and a fifth) may reach, with these `limits` (none: the defaults).
    static func daemonForApps(limits: [String: Any] = [:]) async throws -> RunningDaemon {
        var extra: [String: Any] = ["socket": ["mode": "0666"], "access": ["allowed_uids": apps + [65_534]]]
        if !limits.isEmpty { extra["limits"] = limits }
        let daemon = try await RunningDaemon.start(
            config: demoConfig(adapters: [["name": "device-context", "recipients": ["demo"]]], extra: extra))
        chmod(daemon.directory.url.path, 0o755)
        return daemon
    }

    /// A connection over a cap is answered 503 and closed at once, without reading its
    /// request: a client still writing it may see the close (a reset) instead of the answer.
    static func isRefusal(_ code: String) -> Bool { code == "503" || code == "no-answer" }

    /// A holder under `uid`, its answers read once it holds them.
    final class Holder: Sendable {
        let scratch: TemporaryDirectory
        let process: ChildProcess

        init(uid: Int, socket: String, count: Int) async throws {
            scratch = try TemporaryDirectory()
            process = try await ChildProcess.start(
                "/usr/bin/setpriv",
                [
                    "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/python3", "-c",
                    FairCapTests.holder, socket, "\(count)",
                ], standardOutput: .file(scratch.path("codes")))
        }

        /// The statuses it got, once it has them all.
        func codes() async -> [String] {
            let line =
                (try? await eventually(timeout: .seconds(30)) { () -> String? in
                    let written = String(
                        decoding: FileManager.default.contents(atPath: scratch.path("codes")) ?? Data(), as: UTF8.self)
                    return written.hasSuffix("\n") ? written : nil
                }) ?? ""
            return line.split(whereSeparator: \.isWhitespace).map(String.init)
        }

        /// Closes its connections: it is killed.
        func release() {
            process.send(SIGKILL)
        }
    }

    @Test(.enabled(if: Self.canActAsApps, "needs root, setpriv, curl and python3 to connect as other users"))
    func fourAppsAtTheirCapsLeaveRoomForAFifthAndForRoot() async throws {
        let uids = Self.apps
        let daemon = try await Self.daemonForApps()
        var holders: [Holder] = []
        defer { for holder in holders { holder.release() } }
        for uid in uids {
            // The default caps: 256 in all, 32 per app. Each app gets its 32, and its 33rd is
            // refused: its cap, not the total.
            let holder = try await Holder(uid: uid, socket: daemon.socketPath, count: 33)
            holders.append(holder)
            let codes = await holder.codes()
            #expect(codes.prefix(32) == Array(repeating: "200", count: 32)[...], "uid \(uid): \(codes)")
            #expect(codes.count == 33 && Self.isRefusal(codes[32]), "uid \(uid): \(codes)")
        }
        let fifth = try await Binary.runProgram(
            "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", try #require(Binary.onPath("curl")), "-s", "-o",
                "/dev/null", "-w", "%{http_code}", "--unix-socket", daemon.socketPath, "http://localhost/v1/health",
            ])
        #expect(fifth.stdoutText == "200", "\(fifth.stdoutText) \(fifth.stderr)")
        #expect(try await daemon.client.health().status == "ok", "root is served")
        #expect(daemon.log.contains("max_connections_per_peer"), "the refusals are logged with their cap")
    }

    /// With the total exhausted by apps (their per-peer caps let four of them take it), the
    /// last connection is root's: another app is refused, root is served.
    @Test(.enabled(if: Self.canActAsApps, "needs root, setpriv, curl and python3 to connect as other users"))
    func whenAppsHoldEveryConnectionTheLastIsKeptForRoot() async throws {
        let uids = Self.apps
        let daemon = try await Self.daemonForApps(limits: ["max_connections": 16, "max_connections_per_peer": 4])
        var holders: [Holder] = []
        defer { for holder in holders { holder.release() } }
        var admitted = 0
        for uid in uids {
            let holder = try await Holder(uid: uid, socket: daemon.socketPath, count: 4)
            holders.append(holder)
            admitted += await holder.codes().filter { $0 == "200" }.count
        }
        #expect(admitted == 15, "16 in all, one kept")
        let fifth = try await Holder(uid: 65_534, socket: daemon.socketPath, count: 1)
        holders.append(fifth)
        let codes = await fifth.codes()
        #expect(codes.count == 1 && Self.isRefusal(codes[0]), "another app finds the total reached: \(codes)")
        #expect(try await daemon.client.health().status == "ok", "root takes the last one")
    }
}
