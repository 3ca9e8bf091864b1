import Bench
import Client
import Foundation
import SharedTypes
import SignalCrypto
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon binary on a temporary socket, spoken to over real HTTP. One daemon at a time,
/// so that the timing checks do not compete for the machine's two cores.
@Suite(.serialized)
struct DaemonTests {
    static var echo: [String: Any] { ["name": "test-echo", "recipients": ["demo"], "timeout_ms": 1000] }

    @Test(
        .enabled(
            if: getuid() == 0 && Binary.onPath("setpriv") != nil && Binary.onPath("curl") != nil,
            "needs root, setpriv and curl to connect as another user"))
    func aPeerOutsideTheAllowlistGets403() async throws {
        let daemon = try await RunningDaemon.start(
            config: demoConfig(adapters: [Self.echo], extra: ["socket": ["mode": "0666"]]))
        chmod(daemon.directory.url.path, 0o755)
        let result = try await Binary.runProgram(
            try #require(Binary.onPath("setpriv")),
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", try #require(Binary.onPath("curl")), "-s", "-w",
                "\n%{http_code}",
                "--unix-socket", daemon.socketPath, "http://localhost/v1/health",
            ])
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.last == "403", "\(result.stdoutText) \(result.stderr)")
        #expect(lines.first?.contains("\"peer_not_allowed\"") == true)
        _ = try await eventually { daemon.log.contains("peer_uid=65534") ? true : nil }
        #expect(daemon.log.contains("peer_pid="))
        // Root, the daemon's own uid, still gets in.
        #expect(try await daemon.client.health().status == "ok")
    }

    /// A user listed as a member of a group that is not its primary one, from /etc/group and
    /// /etc/passwd: (user uid, its primary gid, the group's gid).
    static var supplementaryMember: (uid: String, primary: String, group: String)? {
        guard let groups = try? String(contentsOfFile: "/etc/group", encoding: .utf8),
            let users = try? String(contentsOfFile: "/etc/passwd", encoding: .utf8)
        else { return nil }
        let accounts = Dictionary(
            users.split(separator: "\n").compactMap { line -> (String, (String, String))? in
                let fields = line.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
                return fields.count > 3 ? (fields[0], (fields[2], fields[3])) : nil
            }, uniquingKeysWith: { first, _ in first })
        for line in groups.split(separator: "\n") {
            let fields = line.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard fields.count > 3, fields[2] != "0" else { continue }
            for member in fields[3].split(separator: ",").map(String.init) {
                if let (uid, primary) = accounts[member], uid != "0", primary != fields[2] {
                    return (uid, primary, fields[2])
                }
            }
        }
        return nil
    }

    @Test(
        .enabled(
            if: getuid() == 0 && Binary.onPath("setpriv") != nil && Binary.onPath("curl") != nil
                && supplementaryMember != nil,
            "needs root, setpriv, curl and a user who is a supplementary member of a group"))
    func aMemberOfTheSocketGroupByTheGroupDatabaseGetsIn() async throws {
        let member = try #require(Self.supplementaryMember)
        let daemon = try await RunningDaemon.start(
            config: demoConfig(adapters: [Self.echo], extra: ["socket": ["mode": "0666", "group": member.group]]))
        chmod(daemon.directory.url.path, 0o755)
        // The peer runs with no supplementary groups of its own: only the group database admits it.
        func status(uid: String, gid: String) async throws -> String? {
            let result = try await Binary.runProgram(
                try #require(Binary.onPath("setpriv")),
                [
                    "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", try #require(Binary.onPath("curl")), "-s",
                    "-o",
                    "/dev/null", "-w", "%{http_code}", "--unix-socket", daemon.socketPath, "http://localhost/v1/health",
                ])
            return result.stdoutText.split(separator: "\n").last.map(String.init)
        }
        #expect(try await status(uid: member.uid, gid: member.primary) == "200", "\(daemon.log)")
        #expect(try await status(uid: "65534", gid: "65534") == "403")
    }

    /// Whether `reply` carries a `Date` header (RFC 9110 §6.6.1) within a few seconds of now.
    static func isDatedNow(_ reply: DaemonClient.Reply) -> Bool {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = reply.headers["date"].flatMap(format.date(from:)) else { return false }
        return abs(date.timeIntervalSinceNow) <= 5
    }

    /// Launchers that hand the daemon a listening socket: systemd's, and a bare LISTEN_FDS handover.
    static var activationLaunchers: [String] {
        var launchers: [String] = []
        if Binary.onPath("systemd-socket-activate") != nil { launchers.append("systemd-socket-activate") }
        if Binary.onPath("python3") != nil { launchers.append("LISTEN_FDS") }
        return launchers
    }

    @Test(arguments: activationLaunchers)
    func servesTheSocketItIsHanded(launcher: String) async throws {
        let directory = try TemporaryDirectory()
        let socket = directory.path("activated.sock")
        let prefix: [String]
        if launcher == "systemd-socket-activate" {
            prefix = [try #require(Binary.onPath("systemd-socket-activate")), "-l", socket]
        } else {
            let script = directory.path("handover.py")
            try """
            import os, socket, sys
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(sys.argv[1])
            listener.listen(16)
            os.dup2(listener.fileno(), 3)
            os.set_inheritable(3, True)
            os.environ["LISTEN_PID"] = str(os.getpid())
            os.environ["LISTEN_FDS"] = "1"
            os.execv(sys.argv[2], sys.argv[2:])
            """.write(toFile: script, atomically: true, encoding: .utf8)
            prefix = [try #require(Binary.onPath("python3")), script, socket]
        }
        let daemon = try await RunningDaemon(
            config: demoConfig(adapters: [Self.echo], extra: ["socket": ["path": directory.path("unused.sock")]]),
            launcher: prefix)
        let client = DaemonClient(socketPath: socket)
        let health = try? await eventually { try? await client.health() }
        #expect(health?.status == "ok", "\(daemon.log)")
        #expect(try await client.collect(requestID: "activated").signals.count == 1)
        #expect(try await Self.isDatedNow(client.request(.GET, "/v1/health")))
        #expect(daemon.log.contains("serving the socket systemd handed over"))
        #expect(!FileManager.default.fileExists(atPath: directory.path("unused.sock")))
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    @Test func notifiesSystemdOfReadinessWatchdogReloadAndStop() async throws {
        let directory = try TemporaryDirectory()
        let listener = try NotifyListener(path: directory.path("notify.sock"))
        let daemon = try await RunningDaemon.start(
            config: demoConfig(adapters: [Self.echo]),
            environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "200000"])
        let ready = await listener.wait { $0.contains("READY=1") }
        #expect(ready?.contains("STATUS=serving; 1 of 1 adapters ready") == true, "\(listener.messages)")
        #expect(try await Self.isDatedNow(daemon.client.request(.GET, "/v1/health")))
        #expect(await listener.wait { $0 == "WATCHDOG=1" } != nil)
        daemon.send(SIGHUP)
        #expect(await listener.wait { $0.contains("RELOADING=1") } != nil)
        #expect(await listener.wait { $0.contains("READY=1") && $0.contains("reloaded") } != nil)
        daemon.send(SIGTERM)
        #expect(await listener.wait { $0.contains("STOPPING=1") } != nil)
        #expect(await daemon.waitForExit() == 0)
    }

    @Test func sighupPicksUpANewKey() async throws {
        // The key is written before the daemon starts, beside its configuration.
        let keys = try TemporaryDirectory()
        let keyConfigPath = keys.path("bidder.keyconfig")
        let old = try X25519PrivateKey()
        let oldConfig = KeyConfig(keyID: 10, publicKey: old.publicKey, aeads: [.aes128GCM])
        try KeyFiles.writeKeyConfig(oldConfig, to: keyConfigPath, overwrite: true)
        // Generous deadlines: what is asserted is the key, on a busy machine too.
        let daemon = try await RunningDaemon.start(config: [
            "recipients": ["bidder": ["key_configs": [keyConfigPath]]],
            "adapters": [["name": "test-echo", "recipients": ["bidder"], "timeout_ms": 3000]],
            "deadlines": ["request_timeout_ms": 5000],
        ])
        let before = try #require(try await daemon.client.collect(requestID: "before").signals.first)
        #expect(before.keyID == 10)
        #expect(throws: Never.self) { try EnvelopeOpener(privateKey: old, keyConfig: oldConfig).open(before.envelope) }

        let new = try X25519PrivateKey()
        let newConfig = KeyConfig(keyID: 11, publicKey: new.publicKey, aeads: [.chaCha20Poly1305])
        try KeyFiles.writeKeyConfig(newConfig, to: keyConfigPath, overwrite: true)
        daemon.send(SIGHUP)
        // Typed: a `String?` probe would make `nil` a value, and the first key's answer the end.
        let after = try? await eventually(timeout: .seconds(30)) { () async -> String? in
            let signal = try? await daemon.client.collect(requestID: "after").signals.first
            return signal?.keyID == 11 ? signal?.envelope : nil
        }
        let envelope = try #require(after, "\(daemon.log)")
        let opened = try EnvelopeOpener(privateKey: new, keyConfig: newConfig).open(envelope)
        #expect(opened.header.suite.aead == .chaCha20Poly1305)
        // Logged once the reload is done, which may be just after the new key is in force.
        #expect(try await eventually { daemon.log.contains("reloaded configuration and keys") ? true : nil })
    }

    @Test func aReloadKeepsTheStateDirectoryTheDaemonStartedWith() async throws {
        let daemon = try await RunningDaemon.start(config: demoConfig(adapters: [Self.echo]))
        let moved = daemon.directory.path("moved")
        // The reload adds an adapter that keeps state, and names another directory.
        let reloaded = demoConfig(
            // Generous deadlines: the first id is written to disk, slowly on a busy machine.
            adapters: [Self.echo, ["name": "first-party-id", "recipients": ["demo"], "timeout_ms": 3000]],
            deadlines: ["request_timeout_ms": 5000],
            extra: ["socket": ["path": daemon.socketPath], "state_directory": moved])
        try JSONSerialization.data(withJSONObject: reloaded).write(to: URL(fileURLWithPath: daemon.configPath))
        daemon.send(SIGHUP)
        _ = try await eventually { daemon.log.contains("reloaded configuration and keys") ? true : nil }
        try await daemon.waitUntilAdaptersSettle()
        // The id is stored when first asked for under consent: in the state directory it started with.
        let consent = Data(#"{"privacy": {"limit_ad_tracking": false}}"#.utf8)
        #expect(try await daemon.client.request(.PUT, "/v1/privacy", json: consent).status == 200)
        #expect(try await daemon.client.collect(requestID: "r", adapters: ["first-party-id"]).signals.count == 1)
        // The test's uid is an app of its own, of no publisher: its id is its own, in a file of its own.
        let publishers = daemon.directory.path("state/first-party-id.publishers")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: publishers))?.count == 1, "\(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: moved))
        #expect(daemon.log.contains("the new state_directory applies at the next start"))
    }

    /// The same directory, made at start (so read at a reload as an existing directory, which
    /// Foundation's URL writes with a trailing slash): a reload says nothing of it.
    @Test func aReloadOfTheSameStateDirectoryIsNotTakenForAMove() async throws {
        let daemon = try await RunningDaemon.start(config: demoConfig(adapters: [Self.echo]))
        for reload in 1...2 {
            daemon.send(SIGHUP)
            _ = try await eventually {
                daemon.log.components(separatedBy: "reloaded configuration and keys").count > reload ? true : nil
            }
        }
        #expect(!daemon.log.contains("state_directory applies at the next start"), "\(daemon.log)")
    }

    @Test func journaldLinesCarryTheirPriorityAndTheDemoKeyIsWarnedOf() async throws {
        let daemon = try await RunningDaemon.start(
            config: demoConfig(adapters: [Self.echo]), arguments: ["--log-format", "journald"])
        let health = try await daemon.client.health()
        #expect(health.warnings.count == 1)
        #expect(health.warnings.first?.hasPrefix("recipient demo seals for the public demo key") == true)
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        let lines = daemon.log.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(line.range(of: #"^<[2-7]>[a-z-]+: "#, options: .regularExpression) != nil, "\(line)")
        }
        #expect(lines.contains { $0.hasPrefix("<4>secure-signalsd: recipient demo seals for the public demo key") })
        #expect(lines.contains { $0.hasPrefix("<5>secure-signalsd: ") && $0.hasSuffix(" listening") })
    }

    @Test func theConfigurationsLogLevelAppliesAndChangesOnSIGHUP() async throws {
        var config = demoConfig(adapters: [Self.echo])
        config["log_level"] = "warning"
        let daemon = try await RunningDaemon.start(config: config, logLevel: nil)
        #expect(try await daemon.client.health().status == "ok")
        #expect(!daemon.log.contains("listening"), "a notice, under warning")
        config["log_level"] = "notice"
        config["socket"] = ["path": daemon.socketPath]
        config["state_directory"] = daemon.directory.path("state")
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: daemon.configPath))
        daemon.send(SIGHUP)
        _ = try await eventually { daemon.log.contains("reloaded configuration and keys") ? true : nil }
        // A bad level is the configuration's error, named by its key.
        config["log_level"] = "loud"
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: daemon.configPath))
        let check = try await Binary.run("secure-signalsd", ["--config", daemon.configPath, "--check-config"])
        #expect(check.status == 78)
        #expect(check.stderr.contains("log_level: must be one of trace, debug, info"), "\(check.stderr)")
    }

    @Test(.enabled(if: Binary.onPath("curl") != nil, "needs curl"))
    func metricsMayBeScrapedOnALoopbackPortThatServesNothingElse() async throws {
        let port = try Self.freeLoopbackPort()
        let daemon = try await RunningDaemon.start(
            config: demoConfig(adapters: [Self.echo], extra: ["metrics": ["listen": "127.0.0.1:\(port)"]]))
        let curl = try #require(Binary.onPath("curl"))
        let metrics = try await eventually {
            let result = try? await Binary.runProgram(curl, ["-s", "-f", "http://127.0.0.1:\(port)/metrics"])
            return result?.status == 0 ? result?.stdoutText : nil
        }
        #expect(metrics.contains("# HELP secure_signals_build_info "))
        #expect(metrics.contains("process_resident_memory_bytes "))
        let api = try await Binary.runProgram(
            curl, ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/v1/health"])
        #expect(api.stdoutText == "404", "the API is the socket's alone")
        let page = try await Binary.runProgram(
            curl, ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/inspect/loads"])
        #expect(page.stdoutText == "404", "the inspector's page is off unless inspect.page says")
        // Anything but a loopback address is refused, by its key.
        var open = demoConfig(adapters: [Self.echo], extra: ["metrics": ["listen": "0.0.0.0:\(port)"]])
        open["socket"] = ["path": daemon.directory.path("other.sock")]
        try JSONSerialization.data(withJSONObject: open).write(
            to: URL(fileURLWithPath: daemon.directory.path("open.json")))
        let check = try await Binary.run(
            "secure-signalsd", ["--config", daemon.directory.path("open.json"), "--check-config"])
        #expect(check.status == 78)
        #expect(check.stderr.contains("metrics.listen: must be a loopback address"), "\(check.stderr)")
    }

    @Test(.enabled(if: Binary.onPath("curl") != nil, "needs curl"))
    func anEventStreamIsCountedAndTimedWhenItEndsNotWhenItStarts() async throws {
        let daemon = try await RunningDaemon.start(config: demoConfig(adapters: [Self.echo]))
        let curl = try #require(Binary.onPath("curl"))
        func scrape() async throws -> String {
            try await Binary.runProgram(
                curl, ["-s", "-f", "--unix-socket", daemon.socketPath, "http://localhost/metrics"]
            ).stdoutText
        }
        let route = #"route="/v1/events",method="GET",status="200""#
        // The stream ends when curl gives up after a second: only then is it counted, with its length.
        let stream = try await Binary.runProgram(
            curl, ["-s", "-N", "--max-time", "1", "--unix-socket", daemon.socketPath, "http://localhost/v1/events"])
        #expect(stream.status == 28, "curl stops the stream at its --max-time")
        let metrics = try await eventually {
            let text = try await scrape()
            return text.contains("secure_signals_http_requests_total{\(route)} 1") ? text : nil
        }
        let sum = metrics.split(separator: "\n").first {
            $0.hasPrefix(#"secure_signals_http_request_duration_seconds_sum{route="/v1/events",method="GET"}"#)
        }
        let seconds = try #require(sum.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) })
        // curl's second runs from its own start: on a busy machine its start and connect take
        // a tenth of it (0.895 s measured). Timed at its start, the stream would read ~0.
        #expect(seconds >= 0.5, "the stream's second of life is its duration: \(sum ?? "")")
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now.
    static func freeLoopbackPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw DaemonFailure("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func sigtermLetsAnInFlightRequestFinish() async throws {
        let daemon = try await RunningDaemon.start(
            config: demoConfig(
                adapters: [
                    ["name": "test-echo", "recipients": ["demo"], "timeout_ms": 5000, "options": ["delay_ms": 1200]]
                ],
                deadlines: ["request_timeout_ms": 8000]))
        let client = daemon.client
        let inFlight = Task { try await client.collect(requestID: "in-flight") }
        try await Task.sleep(for: .milliseconds(400))
        daemon.send(SIGTERM)
        let result = try await inFlight.value
        #expect(result.signals.count == 1, "\(result.errors)")
        #expect(await daemon.waitForExit() == 0)
        #expect(!isListening(daemon.socketPath))
    }

    /// The repository's example configuration, and an environment that puts its socket and state
    /// (the defaults it leaves them to) in `directory`.
    private func exampleConfiguration(runningIn directory: TemporaryDirectory) -> (String, [String: String]) {
        let environment = [
            "XDG_RUNTIME_DIR": directory.path("run"), "XDG_STATE_HOME": directory.path("state"),
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
        return (repositoryRoot.appendingPathComponent("config/daemon.json").path, environment)
    }

    /// `--print-config` (like `nginx -T`): the example's effective configuration, which
    /// `--config` accepts as it is and prints back unchanged.
    @Test func printConfigPrintsWhatConfigAccepts() async throws {
        let directory = try TemporaryDirectory()
        let (example, environment) = exampleConfiguration(runningIn: directory)
        let printed = try await Binary.run(
            "secure-signalsd", ["--config", example, "--print-config"], environment: environment)
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stdoutText.contains(#""socket" : {"#))
        #expect(printed.stdoutText.contains(#""path" : "\#(directory.path("run/secure-signals.sock"))""#))
        try Data(printed.stdout).write(to: directory.url.appendingPathComponent("effective.json"))
        let check = try await Binary.run(
            "secure-signalsd", ["--config", directory.path("effective.json"), "--check-config"])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdoutText.contains("adapter       python-file (exec /"))
        #expect(check.stdoutText.contains("advertising   id from file /run/platform/advertising-id.json, dpid"))
        // The check says what should not reach production, as the daemon's start would.
        #expect(check.stdoutText.contains("warning       recipient demo-bidder seals for the public demo key"))
        let again = try await Binary.run(
            "secure-signalsd", ["--config", directory.path("effective.json"), "--print-config"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdoutText == printed.stdoutText)
        let both = try await Binary.run("secure-signalsd", ["--check-config", "--print-config"])
        #expect(both.status == 64 && both.stderr.contains("one or the other"), "\(both.stderr)")
    }

    /// The repository's example is a working start: checked and served as it is, by any user,
    /// wherever it is run from.
    @Test func theRepositorysExampleConfigurationStartsAsItIs() async throws {
        let directory = try TemporaryDirectory()
        let (example, environment) = exampleConfiguration(runningIn: directory)
        let check = try await Binary.run(
            "secure-signalsd", ["--config", example, "--check-config"], environment: environment)
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdoutText.contains("adapter       python-file (exec /"))
        // Its stderr is "the journal": JOURNAL_STREAM names the file's device and inode, as
        // systemd does for a service's stream.
        let logPath = directory.path("journal")
        #expect(FileManager.default.createFile(atPath: logPath, contents: nil))
        var file = stat()
        #expect(stat(logPath, &file) == 0)
        let process = try await ChildProcess.start(
            Binary.path("secure-signalsd"), ["--config", example],
            environment: environment.merging(["JOURNAL_STREAM": "\(file.st_dev):\(file.st_ino)"]) { $1 },
            standardOutput: .file(logPath), standardError: .file(logPath))
        let client = DaemonClient(socketPath: directory.path("run/secure-signals.sock"))
        let health = try await eventually { try? await client.health() }
        #expect(health.status == "ok")
        let adapters = try await eventually {
            let all = try? await client.adapters()
            return all?.allSatisfy { $0.state.rawValue != "initializing" } == true ? all : nil
        }
        let unready = adapters.filter { $0.state.rawValue != "ready" }.map { "\($0.name): \($0.description)" }
        #expect(unready.isEmpty, "\(unready)")
        process.send(SIGTERM)
        #expect(await process.exit(within: .seconds(60)) == .exited(0))
        let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("<5>secure-signalsd: ") && $0.hasSuffix(" listening") }, "\(lines)")
        #expect(lines.allSatisfy { $0.range(of: #"^<[2-7]>"#, options: .regularExpression) != nil }, "\(lines)")
    }

    @Test func checkConfigChecksAKeyURLButNeverFetchesIt() async throws {
        let directory = try TemporaryDirectory()
        let server = try await FakeAdServer()
        server.answer("*", .init(status: 500))
        let config: [String: Any] = [
            "recipients": ["bidder": ["key_url": server.url("/keys?token=secret")]],
            "socket": ["path": directory.path("s.sock")], "state_directory": directory.path("state"),
        ]
        try JSONSerialization.data(withJSONObject: config).write(to: directory.url.appendingPathComponent("d.json"))
        let check = try await Binary.run("secure-signalsd", ["--config", directory.path("d.json"), "--check-config"])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(
            check.stdoutText.contains(
                "recipient     bidder: keys from \(server.url("/keys")) (not fetched by a check)"),
            "\(check.stdoutText)")
        #expect(!check.stdoutText.contains("secret"), "a query may carry a token")
        #expect(server.allRequests.isEmpty)
        var http = config
        http["recipients"] = ["bidder": ["key_url": "http://keys.example/k"]]
        try JSONSerialization.data(withJSONObject: http).write(to: directory.url.appendingPathComponent("h.json"))
        let refused = try await Binary.run("secure-signalsd", ["--config", directory.path("h.json"), "--check-config"])
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("recipients.bidder.key_url: must be https"), "\(refused.stderr)")
    }

    @Test func checkConfigValidatesAndNamesTheKeyAtFault() async throws {
        let directory = try TemporaryDirectory()
        // The installed example, with what only a device has (its group, /run, /var/lib)
        // pointed at this test's own.
        var installed = try String(
            contentsOf: repositoryRoot.appendingPathComponent("systemd/daemon.json"), encoding: .utf8)
        installed = installed.replacingOccurrences(of: "\"group\": \"secure-signals\"", with: "\"group\": \"0\"")
        installed = installed.replacingOccurrences(of: "/run/secure-signals/", with: directory.path("run") + "/")
        installed = installed.replacingOccurrences(of: "/var/lib/secure-signals", with: directory.path("state"))
        try installed.write(toFile: directory.path("good.json"), atomically: true, encoding: .utf8)
        let good = try await Binary.run("secure-signalsd", ["--config", directory.path("good.json"), "--check-config"])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdoutText.contains("OK"))
        #expect(good.stdoutText.contains("adapter       audience-segments (file)"))

        let bad: [(String, String)] = [
            (
                #"{"adapters": [{"name": "device-context", "timeout_ms": 50, "colour": 1}]}"#,
                "adapters[0].colour: unknown key"
            ),
            (#"{"adapters": [{"name": "nope"}]}"#, "adapters[0].name: no adapter type named \"nope\""),
            (
                #"{"adapters": [{"name": "device-context", "recipients": ["ghost"]}]}"#,
                "adapters[0].recipients[0]: no recipient named \"ghost\""
            ),
            (#"{"deadlines": {"request_timeout_ms": 0}}"#, "deadlines.request_timeout_ms: must be between 1 and 60000"),
            (#"{"socket": {"mode": "rw"}}"#, "socket.mode"),
            (
                #"{"adapters": [{"name": "device-context", "timeout_ms": 0}]}"#,
                "adapters[0].timeout_ms: must be between 1"
            ),
            (#"{"recipients": {"b": {"key_configs": ["missing.keyconfig"]}}}"#, "recipients.b.key_configs[0]"),
            ("{", "not valid JSON"),
            ("{\n  \"deadlines\": {\n    \"request_timeout_ms\": 5 00\n  }\n}", "not valid JSON (line 3, column"),
            (
                #"{"deadlines": {"request_timeout_ms": 1.5}}"#,
                "deadlines.request_timeout_ms: must be a whole number, not 1.5"
            ),
            ("{\n  \"adapters\": [],\n}", "not valid JSON (line 2, column 17): a trailing comma in the document"),
            (
                "{\"deadlines\": {\n  \"request_timeout_ms\": 1,\n  \"request_timeout_ms\": 2}}",
                "deadlines.request_timeout_ms: appears twice in one object (line 3, column 3)"
            ),
            (
                #"{"adapters": [{"name": "file", "options": {"path": "/tmp/x", "max_age": 1}}]}"#,
                "adapters[0].options.max_age: unknown key; known: max_age_ms, path, sdk_version"
            ),
            (
                #"{"state_directory": "/proc/self/status/state"}"#,
                "state_directory: /proc/self/status exists and is not a directory"
            ),
        ]
        let longSocket = try await Binary.run(
            "secure-signalsd", ["--socket", "/tmp/" + String(repeating: "s", count: 120), "--check-config"])
        #expect(longSocket.status == 78 && longSocket.stderr.contains("must be under 108"), "\(longSocket.stderr)")
        // Something that is not a socket at the socket's path: said plainly, found by
        // --check-config, and at start exit 78 (it was NIO's words after READY, and exit 1).
        let notASocket = directory.path("not-a-socket")
        try Data("x".utf8).write(to: URL(fileURLWithPath: notASocket))
        let socketDirectory = directory.path("a-directory")
        try FileManager.default.createDirectory(atPath: socketDirectory, withIntermediateDirectories: true)
        for (path, kind) in [(notASocket, "a file that is not a socket"), (socketDirectory, "a directory")] {
            for extra in [["--check-config"], []] {
                let run = try await Binary.run(
                    "secure-signalsd", ["--socket", path] + extra)
                #expect(run.status == 78, "\(extra) \(run.stderr)")
                #expect(run.stderr.contains("\(path) is \(kind); the daemon replaces only a socket"), "\(run.stderr)")
                #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            }
        }
        try await expectCheckConfigRefuses(bad, in: directory)
    }

    @Test func checkConfigListsEveryErrorOnItsOwnLine() async throws {
        let directory = try TemporaryDirectory()
        try #"{"colour": 1, "adapters": [{"name": "nope"}]}"#.write(
            toFile: directory.path("shape.json"), atomically: true, encoding: .utf8)
        try #"{"adapters": [{"name": "nope"}, {"name": "device-context", "options": {"brnd": 1}}]}"#.write(
            toFile: directory.path("entries.json"), atomically: true, encoding: .utf8)
        let shape = try await Binary.run(
            "secure-signalsd", ["--config", directory.path("shape.json"), "--check-config"])
        #expect(shape.status == 78)
        // The shape first: an unknown key hides nothing else in its section, and the entries
        // are checked once the shape is right.
        #expect(
            shape.stderr.split(separator: "\n") == [
                "secure-signalsd: \(directory.path("shape.json")): colour: unknown key"
            ])
        let entries = try await Binary.run(
            "secure-signalsd", ["--config", directory.path("entries.json"), "--check-config"])
        #expect(entries.status == 78)
        let lines = entries.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(entries.stderr)")
        #expect(lines.first?.contains("adapters[0].name: no adapter type named \"nope\"") == true)
        #expect(
            lines.last?.hasSuffix("adapters[1].options.brnd: unknown key; known: brand, model, os_release_path")
                == true)
    }

    @Test func aStateDirectoryTheDaemonCannotMakeStopsItAtStartWithTheKey() async throws {
        let directory = try TemporaryDirectory()
        // Start checks what --check-config checks, before it listens or runs an adapter.
        try "{\"state_directory\": \"/proc/self/status/x\", \"socket\": {\"path\": \"\(directory.path("s.sock"))\"}}"
            .write(toFile: directory.path("daemon.json"), atomically: true, encoding: .utf8)
        let result = try await Binary.run("secure-signalsd", ["--config", directory.path("daemon.json")])
        #expect(result.status == 78)
        #expect(
            result.stderr.contains("state_directory: /proc/self/status exists and is not a directory"),
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("s.sock")))
    }

    @Test func theEmbeddedDefaultRunsWithNoFlagsAndSaysWhereItListens() async throws {
        let directory = try TemporaryDirectory()
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory.url.path
        environment["XDG_STATE_HOME"] = directory.path("state")
        environment["NOTIFY_SOCKET"] = nil
        let log = directory.url.appendingPathComponent("log")
        let process = try await ChildProcess.start(
            Binary.path("secure-signalsd"), environment: environment, workingDirectory: directory.url.path,
            standardOutput: .file(log.path), standardError: .file(log.path))
        defer { process.send(SIGTERM) }
        let socket = directory.path("secure-signals.sock")
        let client = DaemonClient(socketPath: socket)
        let adapters: [String] =
            (try? await eventually { () async -> [String]? in
                let names = (try? await client.adapters().map(\.name)) ?? []
                return names.isEmpty ? nil : names
            }) ?? []
        #expect(
            adapters == ["device-context", "first-party-id", "file", "test"], "three signal adapters, one ad network")
        let text = try String(contentsOf: log, encoding: .utf8)
        #expect(text.contains("listening") && text.contains(socket))
        let demo = try DemoRecipient(in: directory)
        let signal = try #require(try await client.collect(requestID: "default").signals.first)
        #expect(try demo.open(signal.envelope)["adapter"] as? String == "device-context")
    }

    @Test func aSecondDaemonRefusesASocketALiveOneServes() async throws {
        let first = try await RunningDaemon.start(config: demoConfig(adapters: [Self.echo]))
        let second = try await Binary.run(
            "secure-signalsd-testbed", ["--config", first.configPath, "--socket", first.socketPath])
        #expect(second.status != 0)
        #expect(second.stderr.contains("another daemon listens on this socket"), "\(second.stderr)")
        #expect(try await first.client.health().status == "ok")
    }

}
