import Foundation
import SecureSignals
import SignalCrypto
import TestSupport
import Testing

/// A fetched key set's lifetime from its headers, and its states over time.
struct RecipientKeySetTests {
    static let day = Duration.seconds(86_400)

    @Test func cacheControlMaxAgeLessAgeClampedToFiveMinutesAndSevenDays() {
        let cases: [(String?, String?, Duration, String)] = [
            ("max-age=3600", nil, .seconds(3600), "max-age"),
            ("public, max-age=3600", "600", .seconds(3000), "less its Age"),
            ("Max-Age = \"7200\"", nil, .seconds(7200), "any case, spaces, quoted"),
            ("max-age=60", nil, .seconds(300), "at least five minutes"),
            ("max-age=3600", "4000", .seconds(300), "older than its max-age: the shortest"),
            ("max-age=99999999999999999999999", nil, .seconds(7 * 86_400), "at most seven days"),
            ("no-store", nil, .seconds(300), "no-store: the shortest"),
            ("no-cache, max-age=3600", nil, .seconds(300), "no-cache wins"),
            (nil, nil, Self.day, "no header: the default"),
            ("public", "10", Self.day, "no max-age: the default"),
            ("max-age=abc", nil, Self.day, "a bad max-age: the default"),
            ("max-age=10, max-age=20", nil, Self.day, "two max-ages: invalid, the default"),
            ("max-age=3600", "-5", .seconds(3600), "a bad Age is no age"),
        ]
        for (cacheControl, age, expected, name) in cases {
            #expect(KeySetLifetime.of(cacheControl: cacheControl, age: age, default: Self.day) == expected, "\(name)")
        }
    }

    @Test func aSetIsFreshThenStaleThenExpiredAndRefreshedAtHalfItsLifetime() throws {
        let config = KeyConfig(keyID: 3, publicKey: try X25519PrivateKey().publicKey, aeads: [.aes128GCM])
        let set = RecipientKeySet(configs: [config], fetchedAt: 1_000_000, lifetime: .seconds(3600))
        let stale = Self.day
        #expect(set.state(at: 1_000_000, maxStale: stale) == .fresh)
        #expect(set.state(at: 1_000_000 + 3_599_999, maxStale: stale) == .fresh)
        #expect(set.state(at: 1_000_000 + 3_600_000, maxStale: stale) == .stale)
        #expect(set.state(at: set.staleUntil(maxStale: stale) - 1, maxStale: stale) == .stale)
        #expect(set.state(at: set.staleUntil(maxStale: stale), maxStale: stale) == .expired)
        #expect(set.refreshAt(jitter: 0) == 1_000_000 + 1_800_000)
        #expect(set.refreshAt(jitter: 1) == 1_000_000 + 2_160_000)
        #expect(set.refreshAt(jitter: -5) == 1_000_000 + 1_440_000, "jitter is at most a tenth either way")
        #expect(set.keyIDs == [3])
    }
}

/// The last good key set on disk, across restarts.
struct RecipientKeyStoreTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    @Test func aSavedSetLoadsBackForItsURLOnly() throws {
        let store = RecipientKeyStore(directory: directory.url.appendingPathComponent("recipients"))
        let configs = try [3, 4].map {
            KeyConfig(
                keyID: UInt8($0), publicKey: try X25519PrivateKey().publicKey, aeads: [.aes128GCM, .chaCha20Poly1305])
        }
        let set = RecipientKeySet(configs: configs, fetchedAt: 1_700_000_000_000, lifetime: .seconds(3600))
        #expect(try store.load("bidder", url: "https://keys.example/k") == nil, "nothing stored yet")
        try store.save(set, for: "bidder", url: "https://keys.example/k")
        #expect(try store.load("bidder", url: "https://keys.example/k") == set)
        #expect(try store.load("bidder", url: "https://other.example/k") == nil, "fetched from another URL")
        // Replaced whole; no temporary file is left.
        var later = set
        later.fetchedAt += 60_000
        try store.save(later, for: "bidder", url: "https://keys.example/k")
        #expect(try store.load("bidder", url: "https://keys.example/k") == later)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory.path) == ["bidder.json"])
    }

    @Test func aDamagedFileIsReportedNotUsed() throws {
        let store = RecipientKeyStore(directory: directory.url)
        try Data("not json".utf8).write(to: directory.url.appendingPathComponent("bidder.json"))
        #expect(throws: RecipientKeyStore.Damaged.self) { try store.load("bidder", url: "u") }
        let empty = #"{"url":"u","fetched_at_ms":1,"lifetime_ms":1000,"keys":"AAA="}"#
        try Data(empty.utf8).write(to: directory.url.appendingPathComponent("bidder.json"))
        #expect(throws: RecipientKeyStore.Damaged.self) { try store.load("bidder", url: "u") }
    }
}

/// A key URL's answer, judged: only a well-formed application/ohttp-keys set is taken.
struct KeySetResponseTests {
    static func config(_ id: UInt8) throws -> KeyConfig {
        KeyConfig(keyID: id, publicKey: try X25519PrivateKey().publicKey, aeads: [.aes128GCM])
    }

    static func judge(status: Int = 200, type: String? = "application/ohttp-keys", body: [UInt8], age: String? = nil)
        throws(KeySetResponse.Refusal) -> RecipientKeySet
    {
        var headers = ["cache-control": "max-age=7200"]
        headers["content-type"] = type
        headers["age"] = age
        return try KeySetResponse.keySet(
            status: status, headers: headers, body: body, fetchedAt: 5_000, defaultMaxAge: .seconds(86_400))
    }

    @Test func aGoodSetIsTakenInOrderWithItsLifetime() throws {
        let configs = [try Self.config(9), try Self.config(8)]
        let set = try Self.judge(
            type: "Application/OHTTP-Keys; charset=binary", body: KeyConfig.encodeCollection(configs), age: "200")
        #expect(set.configs == configs && set.fetchedAt == 5_000 && set.lifetime == .seconds(7000))
    }

    @Test func eachBadAnswerIsRefusedWithWhy() throws {
        let good = KeyConfig.encodeCollection([try Self.config(1)])
        var unsupported = try Self.config(2)
        unsupported.algorithms = [.init(kdfID: 0x0003, aeadID: 0x0042)]
        var twin = try Self.config(1)
        twin.algorithms = [.init(kdfID: 0x0001, aeadID: 0x0002)]
        let cases: [(Int, String?, [UInt8], String)] = [
            (500, "application/ohttp-keys", good, "answered HTTP 500"),
            (200, "text/html", good, "answered type text/html, not application/ohttp-keys"),
            (200, nil, good, "answered no content type, not application/ohttp-keys"),
            (
                200, "application/ohttp-keys", good + [UInt8](repeating: 0, count: 65_536),
                "answered 65579 bytes, more than 65536"
            ),
            (200, "application/ohttp-keys", [0, 5, 1, 2], "answered a body that is not a key set"),
            (
                200, "application/ohttp-keys", KeyConfig.encodeCollection([unsupported]),
                "answered no configuration with a suite this daemon supports"
            ),
            (
                200, "application/ohttp-keys", KeyConfig.encodeCollection([try Self.config(1), twin]),
                "key id 1 names two different keys"
            ),
        ]
        for (status, type, body, reason) in cases {
            let refusal = #expect(throws: KeySetResponse.Refusal.self, "\(reason)") {
                try Self.judge(status: status, type: type, body: body)
            }
            #expect(refusal?.description.contains(reason) == true, "\(refusal?.description ?? "")")
        }
    }
}
