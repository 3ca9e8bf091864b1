import Foundation
import SignalCrypto
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `secure-signals collect`, `adapters` and `health`, run as binaries against a daemon.
@Suite(.serialized)
struct ClientCommandTests {
    /// A TC string granting vendor 755 everything: TCF v2.3, made today.
    static let tcString = ConsentStrings.TC.consentingToEverything(vendor: 755).string

    @Test func theCommandsPrintTablesAndJSON() async throws {
        let daemon = try await RunningDaemon.start(
            config: demoConfig(adapters: [
                ["name": "test-echo", "recipients": ["demo"]],
                ["name": "test-fail-init", "recipients": ["demo"], "options": ["message": "no vendor SDK"]],
            ]))
        let socket = ["--socket", daemon.socketPath]

        // A failed adapter makes health a failing readiness probe, says which, and its first
        // word agrees with its exit status.
        let health = try await Binary.run("secure-signals", ["health"] + socket)
        #expect(health.status == 1)
        #expect(
            health.stdoutText.hasPrefix("not-ready: adapters and networks 1 failed, 1 ready;"),
            "\(health.stdoutText)")
        let unready = "not ready: test-fail-init (builtin): failed: sdk_unavailable: no vendor SDK"
        #expect(health.stdoutText.contains(unready), "\(health.stdoutText)")
        let healthJSON = try await Binary.run("secure-signals", ["health", "--json"] + socket)
        #expect(healthJSON.status == 1)
        #expect((try JSONSerialization.jsonObject(with: Data(healthJSON.stdout)) as? [String: Any])?["status"] != nil)

        let adapters = try await Binary.run("secure-signals", ["adapters"] + socket)
        let rows = adapters.stdoutText.split(separator: "\n")
        #expect(rows.first?.hasPrefix("NAME") == true)
        #expect(rows.contains { $0.hasPrefix("test-echo") && $0.contains("ready") && $0.contains("2.3.4") })
        #expect(rows.contains { $0.hasPrefix("test-fail-init") && $0.contains("sdk_unavailable: no vendor SDK") })

        let collect = try await Binary.run("secure-signals", ["collect", "--request-id", "cli-1"] + socket)
        #expect(collect.stdoutText.hasPrefix("request cli-1: 1 signals, 1 errors"), "\(collect.stdoutText)")
        #expect(collect.stdoutText.contains("test-fail-init  sdk_unavailable  no vendor SDK"))

        let json = try await Binary.run(
            "secure-signals", ["collect", "--json", "--request-id", "cli-2", "--adapter", "test-echo"] + socket)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        #expect(object["request_id"] as? String == "cli-2")
        #expect((object["signals"] as? [[String: Any]])?.first?["adapter"] as? String == "test-echo")
        #expect((object["errors"] as? [Any])?.isEmpty == true)

        let demo = try DemoRecipient(in: daemon.directory)
        let envelope = try #require((object["signals"] as? [[String: Any]])?.first?["envelope"] as? String)
        #expect(try demo.open(envelope)["request_id"] as? String == "cli-2")
    }

    @Test func adsUnitsSaysWhenThisUserIsCappedAndALoadThenFailsInOneLine() async throws {
        let native = "/21775744923/example/native"
        let daemon = try await RunningDaemon.start(
            config: demoConfig(
                adapters: [],
                extra: [
                    "ad_units": [
                        native: [
                            "format": "native", "waterfall": [["network": "test", "parameter": native]],
                            "frequency_caps": [["impressions": 1, "per_ms": 3_600_000]], "pacing_ms": 90_000,
                        ]
                    ]
                ]))
        func cli(_ arguments: [String]) async throws -> Binary.Result {
            try await Binary.run("secure-signals", ["ads"] + arguments + ["--socket", daemon.socketPath])
        }
        let before = try await cli(["units"])
        #expect(before.status == 0)
        #expect(before.stdoutText.hasPrefix("AD UNIT"), "\(before.stdoutText)")
        // AD UNIT, FORMAT, CAPS, PACING, CAPPED, READY
        func columns(_ output: String) throws -> [String] {
            try #require(output.split(separator: "\n").last).split(separator: "  ").map {
                $0.trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty }
        }
        #expect(try columns(before.stdoutText) == [native, "native", "0 of 1 per 1 h", "1 min 30 s", "no", "no"])

        let load = try await cli(["load", "--ad-unit", native, "--json"])
        let id = try #require(
            (try JSONSerialization.jsonObject(with: Data(load.stdout)) as? [String: Any])?["ad_id"] as? String)
        #expect(try await cli(["impression", id]).status == 0)
        let after = try columns(try await cli(["units"]).stdoutText)
        #expect(after.count == 6 && after[2] == "1 of 1 per 1 h", "\(after)")
        // An hour from the impression, less the seconds a busy machine took to ask.
        #expect(
            after[4].hasPrefix("until 20") && (after[4].hasSuffix("(in 1 h)") || after[4].contains("(in 59 min")),
            "\(after)")
        let capped = try await cli(["load", "--ad-unit", native, "--force"])
        #expect(capped.status != 0 && capped.stdout.isEmpty)
        #expect(capped.stderr.contains("load failed: frequency_capped: ad unit"), "\(capped.stderr)")
        #expect(capped.stderr.split(separator: "\n").count == 1)
        let json = try await cli(["units", "--json"])
        let units =
            (try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])?["ad_units"]
            as? [[String: Any]]
        #expect(units?.first?["capped"] as? Bool == true)
    }

    @Test func failuresAreOneLine() async throws {
        let daemon = try await RunningDaemon.start(config: demoConfig(adapters: []))
        let refused = try await Binary.run(
            "secure-signals", ["collect", "--json", "--timeout-ms", "0", "--socket", daemon.socketPath])
        #expect(refused.status != 0)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("the daemon answered 400 invalid_request: timeout_ms"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1)

        // No socket file at all, and a socket file nobody listens on (a daemon that died).
        let absent = daemon.directory.path("nobody-here.sock")
        let stale = daemon.directory.path("stale.sock")
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in stale.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0)
        for path in [absent, stale] {
            for command in ["health", "adapters", "collect"] {
                let result = try await Binary.run("secure-signals", [command, "--socket", path])
                #expect(result.status == (command == "health" ? 2 : 1), "\(command)")
                #expect(result.stdout.isEmpty, "\(command)")
                #expect(result.stderr.contains("no daemon listens on \(path)"), "\(command): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(command)")
            }
        }

    }

    @Test func healthIsAReadinessProbeAndVersionAsksTheDaemon() async throws {
        let daemon = try await RunningDaemon.start(
            config: demoConfig(adapters: [["name": "test-echo", "recipients": ["demo"]]]))
        try await daemon.waitUntilAdaptersSettle()
        let socket = ["--socket", daemon.socketPath]
        let health = try await Binary.run("secure-signals", ["health"] + socket)
        #expect(health.status == 0, "\(health.stdoutText)")
        let version = try await Binary.run("secure-signals", ["version"] + socket)
        #expect(version.status == 0)
        let cli = try await Binary.run("secure-signals", ["--version"])
        let number = cli.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(number.split(separator: ".").count == 3, "\(cli.stdoutText)")
        #expect(version.stdoutText == "cli     \(number)\ndaemon  \(number)\n")
        let daemonVersion = try await Binary.run("secure-signalsd", ["--version"])
        #expect(daemonVersion.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == number)
        // No daemon: the CLI's own version all the same, and a failure.
        let alone = try await Binary.run("secure-signals", ["version", "--socket", daemon.directory.path("none.sock")])
        #expect(alone.status == 1)
        #expect(alone.stdoutText == "cli     \(number)\n")
        #expect(alone.stderr.contains("no daemon listens on"))
    }

    @Test func recipientsShowsEachKeySourceAndFailsWhenOneHasNoKey() async throws {
        let server = try await FakeAdServer()
        server.answer(
            "/keys",
            .init(
                body: KeyConfig.encodeCollection(try KeyFiles.readKeyConfigs(at: DemoRecipient.keyConfigPath)),
                contentType: "application/ohttp-keys", headers: ["Cache-Control": "max-age=3600"]))
        let down = try await FakeAdServer()
        await down.stop()
        var config = demoConfig(adapters: [["name": "test-echo", "recipients": ["demo", "bidder", "gone"]]])
        config["recipients"] = [
            "demo": ["key_configs": [DemoRecipient.keyConfigPath]], "bidder": ["key_url": server.url("/keys")],
            "gone": ["key_url": down.url("/keys")],
        ]
        let daemon = try await RunningDaemon.start(config: config)
        let socket = ["--socket", daemon.socketPath]
        let table = try await eventually {
            let run = try await Binary.run("secure-signals", ["recipients"] + socket)
            return run.stdoutText.contains("could not be reached")
                && run.stdoutText.contains("bidder  url     fresh")
                ? run : nil
        }
        #expect(table.status == 1, "a recipient without a key fails the command: \(table.stdoutText)")
        let rows = table.stdoutText.split(separator: "\n")
        #expect(rows.first?.hasPrefix("NAME    SOURCE  STATE") == true, "\(table.stdoutText)")
        #expect(rows.contains { $0.hasPrefix("demo    file    fresh") && $0.contains(" 1 ") })
        #expect(rows.contains { $0.hasPrefix("gone    url     unavailable  -") && $0.contains("could not be reached") })
        let json = try await Binary.run("secure-signals", ["recipients", "--json"] + socket)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        let recipients = try #require(object["recipients"] as? [[String: Any]])
        try #require(recipients.map { $0["name"] as? String } == ["bidder", "demo", "gone"])
        #expect(recipients[0]["key_ids"] as? [Int] == [1] && recipients[0]["fetched_at"] is String)
        let collect = try await Binary.run("secure-signals", ["collect", "--json"] + socket)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(collect.stdout)) as? [String: Any])
        #expect(
            (answer["signals"] as? [[String: Any]])?.compactMap { $0["recipient"] as? String } == ["demo", "bidder"])
        let error = try #require((answer["errors"] as? [[String: Any]])?.first)
        #expect(error["recipient"] as? String == "gone" && error["code"] as? String == "no_recipient_key")
        // health is no readiness probe that passes while a recipient's signals all fail.
        let health = try await Binary.run("secure-signals", ["health"] + socket)
        #expect(health.status == 1 && health.stdoutText.hasPrefix("not-ready: "), "\(health.stdoutText)")
        #expect(
            health.stdoutText.contains("no key: recipient gone (unavailable): its signals fail no_recipient_key"),
            "\(health.stdoutText)")
    }

    @Test func privacyIsSetShownAndCleared() async throws {
        let daemon = try await RunningDaemon.start(config: demoConfig(adapters: []))
        let socket = ["--socket", daemon.socketPath]
        let none = try await Binary.run("secure-signals", ["privacy"] + socket)
        #expect(none.stdoutText == "no privacy state of its own: the device's stands for this app\n", "\(none.stderr)")
        let set = try await Binary.run(
            "secure-signals",
            [
                "privacy", "set", "--limit-ad-tracking", "false", "--tcf-consent",
                Self.tcString, "--addtl-consent", "2~1.35~dv.9", "--gpp-sid", "2",
                "--gdpr-applies",
                "true",
            ] + socket)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(
            set.stdoutText.contains(
                "limit ad tracking  false\ngdpr applies       true\ntcf consent        set\naddtl consent      set\n"))
        let json = try await Binary.run("secure-signals", ["privacy", "get", "--json"] + socket)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        let privacy = try #require(object["privacy"] as? [String: Any])
        #expect(privacy["tcf_consent"] as? String == Self.tcString)
        #expect(privacy["gpp_sid"] as? [Int] == [2])
        let decoded = try await Binary.run("secure-signals", ["privacy", "decoded"] + socket)
        #expect(decoded.status == 0 && decoded.stdoutText.contains(#""cmp_id" : 7"#), "\(decoded.stdoutText)")
        #expect(decoded.stdoutText.contains(#""consented_providers" : ["#), "\(decoded.stdoutText)")
        let refused = try await Binary.run(
            "secure-signals", ["privacy", "set", "--limit-ad-tracking", "false", "--us-privacy", "1YX"] + socket)
        #expect(
            refused.status != 0 && refused.stderr.contains("invalid_consent: us_privacy: has 3 characters, needs 4"),
            "\(refused.stderr)")
        let cleared = try await Binary.run("secure-signals", ["privacy", "clear"] + socket)
        #expect(cleared.stdoutText == "no privacy state of its own: the device's stands for this app\n")
        #expect(try await daemon.client.request(.GET, "/v1/privacy").body == Data("{\"privacy\":null}\n".utf8))

        // The device's: what only it says, and what stands for apps that set none.
        let appGPC = try await Binary.run(
            "secure-signals", ["privacy", "set", "--limit-ad-tracking", "false", "--gpc", "true"] + socket)
        #expect(appGPC.status != 0 && appGPC.stderr.contains("--gpc and --coppa are the device's to say: add --device"))
        let device = try await Binary.run(
            "secure-signals", ["privacy", "set", "--device", "--limit-ad-tracking", "true", "--gpc", "true"] + socket)
        #expect(device.status == 0 && device.stdoutText.contains("gpc                true\n"), "\(device.stderr)")
        let shown = try await Binary.run("secure-signals", ["privacy", "get", "--device"] + socket)
        #expect(shown.stdoutText.hasPrefix("limit ad tracking  true\n"))
        let noDevice = try await Binary.run("secure-signals", ["privacy", "clear", "--device"] + socket)
        #expect(noDevice.stdoutText == "no device privacy state: no consent for apps that set none\n")
    }

    @Test func adaptersResetMakesANewFirstPartyID() async throws {
        let daemon = try await RunningDaemon.start(
            // Generous deadlines: the first id is written to disk, slowly on a busy machine.
            config: demoConfig(
                adapters: [["name": "first-party-id", "recipients": ["demo"], "timeout_ms": 3000]],
                deadlines: ["request_timeout_ms": 5000]))
        try await daemon.waitUntilAdaptersSettle()
        // The id is made when first asked for under consent.
        let consent = Data(#"{"privacy": {"limit_ad_tracking": false}}"#.utf8)
        #expect(try await daemon.client.request(.PUT, "/v1/privacy", json: consent).status == 200)
        #expect(try await daemon.client.collect(requestID: "r", adapters: ["first-party-id"]).signals.count == 1)
        // This test's uid is an app of its own, of no publisher: its id is in a file of its own.
        let publishers = daemon.directory.path("state/first-party-id.publishers")
        let names = try FileManager.default.contentsOfDirectory(atPath: publishers)
        #expect(names.count == 1)
        let idFile = publishers + "/" + (names.first ?? "")
        let before = try String(contentsOfFile: idFile, encoding: .utf8)
        let reset = try await Binary.run(
            "secure-signals", ["adapters", "reset", "first-party-id", "--socket", daemon.socketPath])
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(reset.stdoutText == "reset first-party-id\n")
        // Forgotten, on disk too; the next one asked for is new.
        #expect(!FileManager.default.fileExists(atPath: idFile))
        #expect(try await daemon.client.collect(requestID: "s", adapters: ["first-party-id"]).signals.count == 1)
        #expect(try String(contentsOfFile: idFile, encoding: .utf8) != before)
        let unknown = try await Binary.run(
            "secure-signals", ["adapters", "reset", "nope", "--socket", daemon.socketPath])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("404"), "\(unknown.stderr)")
    }

    @Test(
        .enabled(
            if: getuid() == 0 && Binary.onPath("setpriv") != nil, "needs root and setpriv to connect as another user"))
    func aSocketThisUserMayNotOpenIsSaidPlainly() async throws {
        let daemon = try await RunningDaemon.start(config: demoConfig(adapters: []))
        chmod(daemon.directory.url.path, 0o755)
        chmod(Binary.path("secure-signals"), 0o755)
        let result = try await Binary.runProgram(
            try #require(Binary.onPath("setpriv")),
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", Binary.path("secure-signals"), "health", "--socket",
                daemon.socketPath,
            ])
        #expect(
            result.stderr.contains("permission denied on \(daemon.socketPath): is this user in the socket's group"),
            "\(result.stderr)")
        #expect(result.status == 2)
    }

    @Test(.enabled(if: Binary.onPath("nm") != nil, "needs nm (binutils) to read the binary's symbols"))
    func theClientLinksNoServer() async throws {
        let symbols = try await Binary.runProgram(try #require(Binary.onPath("nm")), [Binary.path("secure-signals")])
        #expect(symbols.status == 0, "\(symbols.stderr)")
        let servers = symbols.stdoutText.split(separator: "\n").filter {
            $0.contains("Hummingbird") || $0.contains("ServiceLifecycle")
        }
        #expect(servers.isEmpty, "\(servers.prefix(3))")
    }

    @Test func benchRunsTheBenchmarkProgramBesideIt() async throws {
        let run = try await Binary.run("secure-signals", ["bench", "hpke", "--seconds", "0.01", "--rounds", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdoutText.contains("X25519 floor"), "\(run.stdoutText)")
        let help = try await Binary.run("secure-signals", ["bench", "--help"])
        // Only the bench program's own help says this: the CLI forwarded --help to it.
        #expect(help.stdoutText.contains("BENCHMARKS.md"), "\(help.stdoutText)")
    }

    /// `privacy decisions` prints, for the state in force, each adapter's verdict with its reason
    /// and each line item's serving mode with why it is not personalised.
    @Test func privacyDecisionsShowEachVerdictAndItsReason() async throws {
        let units: [String: Any] = [
            "/u": ["format": "native", "waterfall": [["network": "test", "parameter": "/u", "timeout_ms": 2000]]]
        ]
        let daemon = try await RunningDaemon.start(
            config: demoConfig(
                adapters: [["name": "first-party-id", "recipients": ["demo"]]], extra: ["ad_units": units]))
        let socket = ["--socket", daemon.socketPath]
        let texas = ConsentStrings.usState(16, ["TargetedAdvertisingOptOut": 1], gpc: false)
        let set = try await Binary.run(
            "secure-signals",
            ["privacy", "set", "--limit-ad-tracking", "false", "--gpp", texas, "--gpp-sid", "16"] + socket)
        #expect(set.status == 0, "\(set.stderr)")
        let shown = try await Binary.run("secure-signals", ["privacy", "decisions"] + socket)
        let reason = "GPP ustx: TargetedAdvertisingOptOut = 1 (the user opted out of targeted advertising)"
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdoutText.contains("under its own state\n"), "\(shown.stdoutText)")
        #expect(shown.stdoutText.contains("adapter first-party-id: denied: \(reason)\n"), "\(shown.stdoutText)")
        // The operator may carry the id, but no source of it is configured: as a load decides it.
        #expect(
            shown.stdoutText.contains(
                "ad unit /u: advertising id denied: no advertising id source is configured (advertising_id)\n"),
            "\(shown.stdoutText)")
        #expect(
            shown.stdoutText.contains("  line item test /u: allowed; non_personalized (\(reason))\n"),
            "\(shown.stdoutText)")
        let json = try await Binary.run("secure-signals", ["privacy", "decisions", "--json"] + socket)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        #expect(object["state_in_force"] as? String == "app")
    }
}
