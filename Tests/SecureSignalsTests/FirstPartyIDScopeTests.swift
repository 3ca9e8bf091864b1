import Consent
import Foundation
import Logging
import SecureSignals
import SharedTypes
import SignalCrypto
import TestSupport
import Testing

@testable import Adapters

/// first-party-id's `scope` on real files: one id per publisher by default, so that publishers
/// cannot join a user across their apps, or one for the device.
struct FirstPartyIDScopeTests {
    let directory: URL
    var state: URL { directory.appendingPathComponent("state") }
    var publishers: URL { state.appendingPathComponent("first-party-id.publishers") }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fpid-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The adapter as the registry makes it (a start of the daemon), with `options` decoded as
    /// the configuration decodes them (none: its defaults).
    func make(_ options: [String: JSONValue]? = nil) async throws -> FirstPartyIDAdapter {
        try await FirstPartyIDAdapter.make(
            options: try options.map { try FirstPartyIDAdapter.decodeOptions($0) },
            context: AdapterContext(name: "first-party-id", stateDirectory: state, logger: Logger(label: "test")))
    }

    static let news = AppIdentity.signalsApp("tv.example.news", publisher: "pub-1")
    static let sports = AppIdentity.signalsApp("tv.example.sports", publisher: "pub-1")
    static let quiz = AppIdentity.signalsApp("tv.other.quiz", publisher: "pub-2")
    /// Registered without a publisher: its id stands for one.
    static let loner = AppIdentity.signalsApp("tv.loner")

    /// The id `adapter` gives `app` (nil: a request of no app).
    func id(_ adapter: FirstPartyIDAdapter, _ app: AppIdentity?) async throws -> String {
        let request = SignalRequest(requestID: "r", privacy: PrivacyState(limitAdTracking: false), app: app)
        guard case .plaintext(let bytes) = try await adapter.collectSignals(for: request) else {
            throw SignalError(.collectionFailed, "not a plaintext")
        }
        let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: String]
        return try #require(object?["first_party_id"])
    }

    /// The files in `url`, by name; empty when it is not there.
    func files(in url: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    @Test func eachPublisherHasItsOwnIDKeptAcrossRestarts() async throws {
        let adapter = try await make()
        #expect(adapter.scope == .publisher)
        #expect(files(in: state).isEmpty, "nothing is stored before an id is asked for")
        let news = try await id(adapter, Self.news)
        let sports = try await id(adapter, Self.sports)
        let quiz = try await id(adapter, Self.quiz)
        let loner = try await id(adapter, Self.loner)
        let device = try await id(adapter, nil)
        #expect(news == sports, "one publisher's apps share its id")
        #expect(Set([news, quiz, loner, device]).count == 4, "every publisher's is its own, and none is the device's")

        // A file per publisher, private, named by a digest; the device's where it always was.
        let names = files(in: publishers)
        #expect(names.count == 3)
        for name in names {
            #expect(name.count == 64 && name.allSatisfy(\.isHexDigit), "\(name)")
            let attributes = try FileManager.default.attributesOfItem(
                atPath: publishers.appendingPathComponent(name).path)
            #expect(attributes[.posixPermissions] as? Int == 0o600)
        }
        #expect(files(in: state) == ["first-party-id", "first-party-id.publishers"])

        // A restart reads them back.
        let restarted = try await make()
        #expect(try await id(restarted, Self.sports) == news)
        #expect(try await id(restarted, Self.quiz) == quiz)
        #expect(try await id(restarted, Self.loner) == loner)
        #expect(try await id(restarted, nil) == device)
        #expect(files(in: publishers) == names, "reading them back writes nothing new")
    }

    @Test func aResetErasesEveryPublishersID() async throws {
        let adapter = try await make()
        let news = try await id(adapter, Self.news)
        let quiz = try await id(adapter, Self.quiz)
        let device = try await id(adapter, nil)
        // An id another instance wrote, that this one never read, goes too.
        _ = try await id(try await make(), Self.loner)
        #expect(files(in: publishers).count == 3)
        try await adapter.reset()
        #expect(files(in: publishers).isEmpty)
        #expect(!files(in: state).contains("first-party-id"))
        #expect(try await id(adapter, Self.news) != news)
        #expect(try await id(adapter, Self.quiz) != quiz)
        #expect(try await id(adapter, nil) != device)
        #expect(files(in: publishers).count == 2)
        try await make().reset()  // another instance, that read nothing: still all of them
        #expect(files(in: publishers).isEmpty)
        try await adapter.reset()  // nothing left to erase: not an error
    }

    @Test func aHostilePublisherIDStaysInTheDirectory() async throws {
        let adapter = try await make()
        let hostile = [
            "../../etc/passwd", "/etc/passwd", "..", ".", "", "a/b", "x\0y", String(repeating: "p", count: 4096),
        ]
        var ids = Set<String>()
        for (index, publisher) in hostile.enumerated() {
            ids.insert(try await id(adapter, AppIdentity.signalsApp("tv.hostile\(index)", publisher: publisher)))
        }
        ids.insert(try await id(adapter, AppIdentity.signalsApp("../../../tmp/escaped")))
        #expect(ids.count == hostile.count + 1)
        // Everything written is one file per id in the publishers' directory, and nothing else.
        let everything = FileManager.default.subpaths(atPath: directory.path)?.sorted() ?? []
        #expect(everything.count == 2 + hostile.count + 1, "\(everything)")
        #expect(everything.first == "state" && everything.dropFirst().first == "state/first-party-id.publishers")
        for path in everything.dropFirst(2) {
            let name = try #require(path.split(separator: "/").last)
            #expect(path == "state/first-party-id.publishers/\(name)" && name.count == 64, "\(path)")
        }
    }

    @Test func deviceScopeGivesEveryAppTheOneID() async throws {
        let adapter = try await make(["scope": "device"])
        #expect(adapter.scope == .device)
        let device = try await id(adapter, nil)
        #expect(try await id(adapter, Self.news) == device)
        #expect(try await id(adapter, Self.quiz) == device)
        #expect(try await id(adapter, Self.loner) == device)
        #expect(files(in: state) == ["first-party-id"], "no publisher's file")
        // The device's id is the one a publisher-scoped instance gives a request of no app.
        #expect(try await id(try await make(), nil) == device)
    }

    @Test func theScopeIsPublisherOrDevice() throws {
        #expect(try FirstPartyIDAdapter.decodeOptions([:]) == FirstPartyIDAdapter.decodeOptions(["scope": "publisher"]))
        #expect(throws: StrictJSON.Failures.self) { try FirstPartyIDAdapter.decodeOptions(["scope": "app"]) }
    }

    /// Through the collector: each publisher's id is cached for its own apps only, and a reset
    /// drops every cached one with the ids.
    @Test func theCollectorCachesEachPublishersIDApartAndAResetDropsThemAll() async throws {
        let key = try X25519PrivateKey()
        let config = KeyConfig(keyID: 1, publicKey: key.publicKey, aeads: [.aes128GCM])
        let opener = try EnvelopeOpener(privateKey: key, keyConfig: config)
        let collector = try SignalCollector(
            configuration: CollectorConfiguration(
                adapters: [
                    AdapterConfiguration(name: "first-party-id", recipients: ["bidder"], cacheTTL: .seconds(60))
                ],
                recipients: ["bidder": Recipient(name: "bidder", sealer: try EnvelopeSealer(keyConfig: config))],
                stateDirectory: state),
            registry: AdapterRegistry([FirstPartyIDAdapter.self]), clock: ManualClock(), logger: Logger(label: "test"))
        await collector.initializeAll()
        await collector.setPrivacy(
            PrivacyPolicies(standing: try ConsentPolicy(PrivacyState(limitAdTracking: false), at: 0)))
        func collect(_ app: AppIdentity) async throws -> (String, Bool) {
            let result = await collector.collect(requestID: "r", app: app)
            let signal = try #require(result.signals.first, "\(result.errors)")
            let opened = try opener.open(signal.envelope)
            let payload = try WireFormat.decoder().decode(SignalPayload.self, from: Data(opened.payload.bytes))
            return (payload.signal, signal.cached)
        }
        let news = try await collect(Self.news)
        #expect(!news.1)
        #expect(try await collect(Self.sports) == (news.0, true), "the publisher's other app")
        let quiz = try await collect(Self.quiz)
        #expect(!quiz.1 && quiz.0 != news.0, "another publisher's is not served the first one's")
        #expect(try await collect(Self.quiz) == (quiz.0, true))
        try await collector.reset(adapter: "first-party-id")
        let after = try await collect(Self.news)
        #expect(!after.1 && after.0 != news.0)
        let quizAfter = try await collect(Self.quiz)
        #expect(!quizAfter.1 && quizAfter.0 != quiz.0)
        await collector.shutdown()
    }
}
