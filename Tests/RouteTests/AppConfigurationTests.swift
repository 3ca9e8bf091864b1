import Foundation
import SharedTypes
import TestSupport
import Testing

@testable import Daemon

/// `apps` in the configuration: each mistake a configuration error naming its key.
struct AppConfigurationTests {
    let scratch: TemporaryDirectory

    init() throws { scratch = try TemporaryDirectory() }

    func refusal(_ apps: String) -> [String] {
        configurationRefusal(#"{"apps": \#(apps)}"#, scratch: scratch)
    }

    @Test func aWellFormedRegistryIsAccepted() {
        let apps = #"""
            {"unknown": "refuse", "registered": {
              "tv.example.news": {"match": {"uid": 1001}, "capabilities": ["signals", "ads", "advertising_id"],
                "app": {"bundle": "com.example.news", "store_url": "https://store.example/news", "cat": ["IAB12"],
                        "cattax": 1, "publisher": {"id": "p1", "schain": [{"asi": "ssp.example", "sid": "1"}]}}},
              "tv.example.browser": {"match": {"uid": 1002}, "hosts": ["tv.example.news"]},
              "123456789": {"match": {"uid": 1001, "cgroup": "kiosk.service"}}
            }}
            """#
        // The numeric store id and the news app share uid 1001, but a cgroup does not tell
        // them apart from a peer with no cgroup named: refused below; here both name uids.
        #expect(
            refusal(apps) == [
                "apps.registered.123456789.match: could match the same peer as tv.example.news's: give both a uid, gid, cgroup or exe that tells them apart"
            ])
        let apart = apps.replacingOccurrences(of: #""uid": 1001, "cgroup""#, with: #""uid": 1003, "cgroup""#)
        #expect(refusal(apart) == [])
    }

    @Test func eachMistakeIsNamedByItsKey() {
        #expect(
            refusal(#"{"registered": {"tv.example.a": {"match": {"uid": 1}, "capabilities": ["signals", "fly"]}}}"#)
                .first?.hasPrefix("apps.registered.tv.example.a.capabilities[1]") == true)
        #expect(
            refusal(#"{"registered": {"News App": {"match": {"uid": 1}}}}"#)
                == ["apps.registered.News App: is not an app id: a reverse-DNS name (tv.example.news) or a store id"])
        #expect(
            refusal(#"{"registered": {"tv.example.a": {"match": {}}}}"#)
                == ["apps.registered.tv.example.a.match: names none of uid, gid, cgroup, exe"])
        #expect(
            refusal(#"{"registered": {"tv.example.a": {"match": {"exe": "bin/app"}}}}"#)
                == [#"apps.registered.tv.example.a.match.exe: must be an absolute path, not "bin/app""#])
        #expect(
            refusal(#"{"registered": {"tv.example.a": {"match": {"uid": 1}, "hosts": ["tv.example.b"]}}}"#)
                == ["apps.registered.tv.example.a.hosts: names tv.example.b, which is not a registered app"])
        #expect(
            refusal(#"{"registered": {"tv.example.a": {"match": {"uid": 1}}, "tv.example.b": {"match": {"gid": 2}}}}"#)
                == [
                    "apps.registered.tv.example.a.match: could match the same peer as tv.example.b's: give both a uid, gid, cgroup or exe that tells them apart"
                ])
        #expect(refusal(#"{"unknown": "maybe"}"#).first?.hasPrefix("apps.unknown") == true)
        #expect(
            refusal(
                #"{"registered": {"tv.example.a": {"match": {"exe": "/usr/bin/a"}, "hosts": ["tv.example.b"]}, "tv.example.b": {"match": {"uid": 2, "exe": "/usr/bin/b"}}}}"#
            ).first?.hasPrefix("apps.registered.tv.example.a.match: must name a uid or gid") == true)
        #expect(
            refusal(
                #"{"registered": {"tv.example.a": {"match": {"uid": 1}, "hosts": ["tv.example.b"]}, "tv.example.b": {"match": {"uid": 2}, "capabilities": ["device_privacy"]}}}"#
            ) == [
                "apps.registered.tv.example.a.hosts: names tv.example.b, which has device_privacy: a broker's content may not have it"
            ])
        #expect(
            refusal(
                #"{"registered": {"tv.example.a": {"match": {"cgroup": "a.service"}, "capabilities": ["inspect"]}}}"#
            )
            .first?.hasPrefix("apps.registered.tv.example.a.match: must name a uid or gid") == true)
        #expect(
            refusal(#"{"registered": {"tv.example.a": {"match": {"uid": 1}, "app": {"cattax": 9}}}}"#)
                .first?.hasPrefix("apps.registered.tv.example.a.app.cattax") == true)
    }

    @Test func appIDsAreReverseDNSNamesOrStoreIDs() {
        for id in ["tv.example.news", "com.example.app-2", "a.b", "123456789", "tv.example.my_app"] {
            #expect(AppSettings.isAppID(id), "\(id)")
        }
        for id in ["news", "", "Tv.Example", "tv..example", ".tv.example", "tv.example.", "tv example.a", "uid:1000"] {
            #expect(!AppSettings.isAppID(id), "\(id)")
        }
    }
}

/// How a peer is recognized: by its credentials, its cgroup and its executable.
struct AppRecognitionTests {
    static let peer = PeerCredentials(
        pid: 1, uid: 1001, gid: 1001,
        process: PeerProcess(cgroup: "/system.slice/kiosk.service", executable: "/usr/bin/kiosk"))

    func match(_ json: String) throws -> AppMatch {
        try JSONDecoder().decode(AppMatch.self, from: Data(json.utf8))
    }

    @Test func everyKeyGivenMustHold() throws {
        #expect(try match(#"{"uid": 1001}"#).matches(Self.peer, Self.peer.process))
        #expect(try match(#"{"uid": 1001, "gid": 1001}"#).matches(Self.peer, Self.peer.process))
        #expect(try !match(#"{"uid": 1001, "gid": 7}"#).matches(Self.peer, Self.peer.process))
        #expect(try match(#"{"cgroup": "kiosk.service"}"#).matches(Self.peer, Self.peer.process))
        #expect(try !match(#"{"cgroup": "system.slice"}"#).matches(Self.peer, Self.peer.process), "a name is the last")
        #expect(try match(#"{"cgroup": "/system.slice"}"#).matches(Self.peer, Self.peer.process))
        #expect(try !match(#"{"cgroup": "/system.sl"}"#).matches(Self.peer, Self.peer.process), "a path is whole")
        #expect(try !match(#"{"cgroup": "news.service"}"#).matches(Self.peer, Self.peer.process))
        #expect(try match(#"{"exe": "/usr/bin/kiosk", "uid": 1001}"#).matches(Self.peer, Self.peer.process))
        #expect(try !match(#"{"exe": "/usr/bin/news"}"#).matches(Self.peer, Self.peer.process))
        let unreadable = PeerProcess()
        #expect(try !match(#"{"exe": "/usr/bin/kiosk"}"#).matches(Self.peer, unreadable), "unread: no match")
    }

    @Test func theRegistryNamesTheAppAndWhatItMayDo() throws {
        var settings = AppSettings()
        settings.registered["tv.example.kiosk"] = RegisteredApp(
            match: try match(#"{"cgroup": "kiosk.service"}"#), capabilities: [.signals], app: AppDescription(),
            hosts: [])
        let registry = AppRegistry(settings, ownUID: 999)
        #expect(registry.readsProcess, "a cgroup matcher: connections read their peer's process")
        #expect(!AppRegistry(AppSettings(), ownUID: 999).readsProcess, "none: /proc is not read")
        #expect(try registry.app(for: Self.peer, Self.peer.process).id == "tv.example.kiosk")
        #expect(try registry.app(for: Self.peer, Self.peer.process).capabilities == [.signals])
        let other = PeerCredentials(pid: 2, uid: 1002, gid: 1002)
        #expect(try registry.app(for: other, other.process).id == "uid:1002")
        #expect(try registry.app(for: other, other.process).capabilities == [.signals, .ads])
        let root = PeerCredentials(pid: 3, uid: 0, gid: 0)
        #expect(try registry.app(for: root, root.process).capabilities == Set(AppCapability.allCases))
        #expect(throws: AppRegistry.Refusal.notHosted("tv.example.kiosk")) {
            try registry.app(for: other, other.process, naming: "tv.example.kiosk")
        }
        settings.unknown = .refuse
        #expect(throws: AppRegistry.Refusal.unknownApp) {
            try AppRegistry(settings, ownUID: 999).app(for: other, other.process)
        }
        #expect(try AppRegistry(settings, ownUID: 1002).app(for: other, other.process).id == "uid:1002", "the operator")
    }

    /// This test process, as `/proc` shows it: the same facts the daemon reads of a peer.
    @Test func aProcessIsReadFromProc() throws {
        let me = PeerProcess(pid: getpid(), uid: getuid())
        #expect(me.executable == (try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")))
        #expect(me.cgroup?.hasPrefix("/") == true, "cgroup v2: \(String(describing: me.cgroup))")
        #expect(ProcFiles.cgroup(parsing: "12:cpu:/a\n0::/user.slice/x.scope\n") == "/user.slice/x.scope")
        #expect(PeerProcess(pid: -1, uid: getuid()).executable == nil)
        #expect(PeerProcess(pid: getpid(), uid: getuid() + 1) == PeerProcess(), "not the uid it connected with")
    }
}
