import Adapters
import Foundation
import SharedTypes
import TestSupport
import Testing

@testable import Daemon
@testable import Mediation

/// What a bid request and a VAST ad tag say of the asking app, as a real local bidder and ad
/// server receive them: two registered apps of one daemon, each with its registry description
/// (app, publisher, supply chain); the advertising id read from a real file, sent only to the
/// app that may have it, zeros under limit-ad-tracking, none under limited serving; the
/// network's setup overriding a field, never the app; and the id never in the log, at trace.
/// The loads are the store's (`AdLoadRequest.app`, `advertisingID`), as the routes make them.
struct BidRequestIdentityTests {
    static let ifa = "6d92078a-8246-4ba4-ae5b-76104861e7dc"
    static let nativeUnit = "/bid/native"
    static let videoUnit = "/vast/rewarded"
    static let tcString = ConsentStrings.TC.consentingToEverything(vendor: 755).string
    static let gpp = ConsentStrings.usnat()
    static let store = "https://store.example.com/apps/com.example.news"

    static var news: [String: Any] {
        [
            "match": ["uid": 2001], "capabilities": ["signals", "ads", "advertising_id"],
            "app": [
                "bundle": "com.example.news", "store_url": store, "name": "Example News", "version": "4.2.0",
                "cat": ["IAB12"], "cattax": 1,
                "publisher": [
                    "id": "pub-1", "name": "Example Media", "domain": "example.com",
                    "schain": [
                        ["asi": "ssp.example.com", "sid": "pub-1", "hp": 1],
                        ["asi": "reseller.example.net", "sid": "r-9", "hp": 0],
                    ],
                ],
            ],
        ]
    }

    static var games: [String: Any] {
        [
            "match": ["uid": 2002], "capabilities": ["signals", "ads"],
            "app": [
                "bundle": "com.example.games", "store_url": "https://store.example.com/apps/games", "name": "Games",
                "version": "1.0", "cat": ["IAB9-30"], "cattax": 2,
                "publisher": ["id": "pub-2", "name": "Games Co", "domain": "games.example"],
            ],
        ]
    }

    static func config(server: FakeAdServer, idFile: String) -> [String: Any] {
        let tag =
            server.url("/vast")
            + "?ifa=[IFA]&ifa_type=[IFATYPE]&lmt=[LIMITADTRACKING]&bundle=[APPBUNDLE]&store=[STOREURL]"
            + "&gdpr_consent=[GDPRCONSENT]&gpp=[GPPSTRING]&gpp_sid=[GPPSECTIONID]&regs=[REGULATIONS]&cb=[CACHEBUSTING]"
        let units: [String: Any] = [
            nativeUnit: [
                "format": "native",
                "waterfall": [
                    [
                        "network": "openrtb", "parameter": "feed-1", "timeout_ms": 10_000,
                        "options": ["endpoint": server.url("/bid"), "timeout_ms": 8000],
                    ]
                ],
            ],
            videoUnit: [
                "format": "rewarded",
                "waterfall": [["network": "vast", "parameter": tag, "timeout_ms": 10_000]],
            ],
        ]
        let networks: [String: Any] = [
            "openrtb": [
                "setup": [
                    "app": ["publisher_id": "seat-42", "bundle": "tv.example.player", "ver": "9.9"], "coppa": true,
                    "device": ["make": "Acme", "model": "Box 4", "devicetype": 3, "w": 3840, "h": 2160],
                ]
            ]
        ]
        return demoConfig(
            adapters: [],
            extra: [
                "apps": ["registered": ["tv.example.news": news, "tv.example.games": games]],
                "advertising_id": ["file": idFile, "type": "dpid", "refresh_ms": 0],
                "ad_units": units, "ad_networks": networks,
            ])
    }

    /// A load of `unit` for `app`, with the id the store gives it.
    /// A load for `app`: the store reads the advertising id and gives it as the app's
    /// capability and privacy state allow.
    static func load(_ daemon: InProcessDaemon, _ unit: String, _ format: AdFormat, for app: AppIdentity) async throws {
        _ = await daemon.application.state.ads.load(AdLoadRequest(adUnit: unit, format: format, force: true, app: app))
    }

    static func privacy(limitAdTracking: Bool = false, gdprApplies: Bool = false, coppa: Bool = false)
        -> PrivacyState
    {
        PrivacyState(
            limitAdTracking: limitAdTracking, tcfConsent: gdprApplies ? nil : tcString, gpp: gpp, gppSid: [7],
            usPrivacy: "1YNN", gdprApplies: gdprApplies, coppa: coppa)
    }

    @Test func eachAppsBidRequestAndAdTagSpeakForItFieldByField() async throws {
        let server = try await FakeAdServer()
        server.answer("/bid", .init(status: 204))
        server.answer("/vast", .init(status: 200, body: Array("<VAST version=\"4.2\"/>".utf8)))
        let directory = try TemporaryDirectory()
        let idFile = directory.path("advertising-id.json")
        try Data(#"{"ifa": "\#(Self.ifa)", "ifa_type": "dpid", "lmt": 0}"#.utf8).write(to: URL(fileURLWithPath: idFile))
        let log = CapturedLog()
        let daemon = try await InProcessDaemon(
            config: Self.config(server: server, idFile: idFile), logger: log.logger(level: .trace))
        try await daemon.run { _ in
            let apps = daemon.application.state.access.apps
            let news = try apps.app(for: PeerCredentials(pid: 1, uid: 2001, gid: 2001), PeerProcess())
            let games = try apps.app(for: PeerCredentials(pid: 1, uid: 2002, gid: 2002), PeerProcess())
            let anonymous = try apps.app(for: PeerCredentials(pid: 1, uid: 2003, gid: 2003), PeerProcess())
            try await daemon.application.state.privacy.set(Self.privacy(), for: nil)

            // The news app: its description, the setup's seat over its publisher id, its supply
            // chain, and the advertising id.
            try await Self.load(daemon, Self.nativeUnit, .native, for: news)
            let first = try #require(server.requests("/bid").last?.json)
            let app = try #require(first["app"] as? [String: Any])
            #expect(app["id"] as? String == "tv.example.news" && app["name"] as? String == "Example News")
            // The setup's bundle and version only fill in: the registry's are the app's.
            #expect(app["bundle"] as? String == "com.example.news" && app["storeurl"] as? String == Self.store)
            #expect(
                app["ver"] as? String == "4.2.0" && app["cat"] as? [String] == ["IAB12"] && app["cattax"] as? Int == 1)
            let publisher = try #require(app["publisher"] as? [String: Any])
            #expect(publisher["id"] as? String == "seat-42", "the setup's field replaces the registry's")
            #expect(publisher["name"] as? String == "Example Media" && publisher["domain"] as? String == "example.com")
            let schain = try #require((first["source"] as? [String: Any])?["schain"] as? [String: Any])
            #expect(schain["complete"] as? Int == 1 && schain["ver"] as? String == "1.0")
            let nodes = try #require(schain["nodes"] as? [[String: Any]])
            #expect(nodes.map { $0["asi"] as? String } == ["ssp.example.com", "reseller.example.net"])
            #expect(
                nodes.map { $0["sid"] as? String } == ["pub-1", "r-9"] && nodes.map { $0["hp"] as? Int } == [1, 0])
            let device = try #require(first["device"] as? [String: Any])
            #expect(device["ifa"] as? String == Self.ifa && device["lmt"] as? Int == 0)
            #expect((device["ext"] as? [String: Any])?["ifa_type"] as? String == "dpid")
            #expect(device["devicetype"] as? Int == 3 && device["make"] as? String == "Acme")
            #expect(device["model"] as? String == "Box 4" && device["os"] as? String != nil)
            #expect(device["w"] as? Int == 3840 && device["h"] as? Int == 2160)
            let regs = try #require(first["regs"] as? [String: Any])
            #expect(regs["coppa"] as? Int == 0, "the privacy state's COPPA over the setup's")
            #expect(regs["gdpr"] as? Int == 0 && regs["us_privacy"] as? String == "1YNN")
            #expect(regs["gpp"] as? String == Self.gpp && regs["gpp_sid"] as? [Int] == [7])
            #expect((first["user"] as? [String: Any])?["consent"] as? String == Self.tcString)

            // The games app: its own description, no supply chain, and no id (no capability).
            try await Self.load(daemon, Self.nativeUnit, .native, for: games)
            let second = try #require(server.requests("/bid").last?.json)
            let gamesApp = try #require(second["app"] as? [String: Any])
            #expect(
                gamesApp["id"] as? String == "tv.example.games" && gamesApp["bundle"] as? String == "com.example.games")
            #expect(gamesApp["cat"] as? [String] == ["IAB9-30"] && gamesApp["cattax"] as? Int == 2)
            let gamesPublisher = try #require(gamesApp["publisher"] as? [String: Any])
            #expect(
                gamesPublisher["id"] as? String == "seat-42" && gamesPublisher["domain"] as? String == "games.example")
            #expect((second["source"] as? [String: Any])?["schain"] == nil)
            let gamesDevice = try #require(second["device"] as? [String: Any])
            #expect(gamesDevice["ifa"] == nil && gamesDevice["ext"] == nil && gamesDevice["lmt"] as? Int == 0)

            // An app the registry does not describe: no app object, whatever the setup says.
            try await Self.load(daemon, Self.nativeUnit, .native, for: anonymous)
            let third = try #require(server.requests("/bid").last?.json)
            #expect(third["app"] == nil && (third["device"] as? [String: Any])?["ifa"] == nil)

            // Ad tracking limited: zeros, lmt 1.
            try await daemon.application.state.privacy.set(Self.privacy(limitAdTracking: true), for: nil)
            try await Self.load(daemon, Self.nativeUnit, .native, for: news)
            let limited = try #require(server.requests("/bid").last?.json?["device"] as? [String: Any])
            #expect(limited["ifa"] as? String == AdvertisingID.zeros && limited["lmt"] as? Int == 1)
            #expect((limited["ext"] as? [String: Any])?["ifa_type"] as? String == "dpid")

            // Directed to children (the device's COPPA): zeros, lmt 1, regs.coppa 1.
            try await daemon.application.state.privacy.set(Self.privacy(coppa: true), for: nil)
            try await Self.load(daemon, Self.nativeUnit, .native, for: news)
            let children = try #require(server.requests("/bid").last?.json)
            let childDevice = try #require(children["device"] as? [String: Any])
            #expect(childDevice["ifa"] as? String == AdvertisingID.zeros && childDevice["lmt"] as? Int == 1)
            #expect((children["regs"] as? [String: Any])?["coppa"] as? Int == 1)

            // The GDPR applies with no TC string: limited serving sends no identifier at all.
            try await daemon.application.state.privacy.set(Self.privacy(gdprApplies: true), for: nil)
            try await Self.load(daemon, Self.nativeUnit, .native, for: news)
            let gdpr = try #require(server.requests("/bid").last?.json?["device"] as? [String: Any])
            #expect(gdpr["ifa"] == nil && gdpr["ext"] == nil)

            // The ad tags: the IAB's macros, each value encoded; -2 for the id withheld.
            try await daemon.application.state.privacy.set(Self.privacy(), for: nil)
            try await Self.load(daemon, Self.videoUnit, .rewarded, for: news)
            try await Self.load(daemon, Self.videoUnit, .rewarded, for: games)
            let tags = server.requests("/vast").map(\.query)
            #expect(tags.count == 2, "\(tags)")
            let encodedStore = "https%3A%2F%2Fstore.example.com%2Fapps%2Fcom.example.news"
            let shared = "&gdpr_consent=\(Self.tcString)&gpp=\(Self.gpp)&gpp_sid=7&regs=&cb="
            #expect(
                tags.first?.hasPrefix(
                    "ifa=\(Self.ifa)&ifa_type=dpid&lmt=0&bundle=com.example.news&store=\(encodedStore)\(shared)")
                    == true, "\(tags)")
            #expect(
                tags.last?.hasPrefix(
                    "ifa=-2&ifa_type=-2&lmt=0&bundle=com.example.games&store=https%3A%2F%2Fstore.example.com%2Fapps%2Fgames\(shared)"
                ) == true, "\(tags)")
        }
        // Read from the file at every load (refresh_ms 0), logged at trace: never the id.
        #expect(log.lines.contains { $0.contains("the advertising id was read") }, "\(log.lines.count) lines")
        #expect(!log.text.contains(Self.ifa))
    }
}
