import Consent
import Foundation
import Logging
import SecureSignals
import SharedTypes
import SignalCrypto
import TestSupport
import Testing

@testable import Adapters

/// A real exec program (Tests/Fixtures/exec-adapters/echo_request_adapter.py, which answers
/// with what it received) told which app asks, and cached per app.
struct ExecAppTests {
    static let program =
        repositoryRoot.appendingPathComponent("Tests/Fixtures/exec-adapters/echo_request_adapter.py").path

    @Test func aProgramIsToldTheAppAndItsAnswerIsKeptPerApp() async throws {
        let key = try X25519PrivateKey()
        let config = KeyConfig(keyID: 1, publicKey: key.publicKey, aeads: [.aes128GCM])
        let opener = try EnvelopeOpener(privateKey: key, keyConfig: config)
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("exec-app-\(UUID().uuidString)")
        let collector = try SignalCollector(
            configuration: CollectorConfiguration(
                adapters: [
                    AdapterConfiguration(
                        name: "echo-request", program: ProgramSpec(executable: Self.program), recipients: ["bidder"],
                        timeout: .seconds(5), cacheTTL: .seconds(60))
                ],
                recipients: ["bidder": Recipient(name: "bidder", sealer: try EnvelopeSealer(keyConfig: config))],
                stateDirectory: state),
            registry: AdapterRegistry(programLauncher: ExecSignalAdapter.launcher), clock: ManualClock(),
            logger: Logger(label: "test"))
        await collector.initializeAll()
        #expect(await collector.statuses().first?.state == .ready)
        let consenting = PrivacyState(limitAdTracking: false)
        await collector.setPrivacy(PrivacyPolicies(standing: try ConsentPolicy(consenting, at: 0)))

        func received(_ app: AppIdentity?) async throws -> (String, Bool) {
            let result = await collector.collect(requestID: "r", app: app)
            let signal = try #require(result.signals.first, "\(result.errors)")
            let opened = try opener.open(signal.envelope)
            let payload = try WireFormat.decoder().decode(SignalPayload.self, from: Data(opened.payload.bytes))
            let bytes = try #require(Data(base64Encoded: payload.signal))
            return (String(decoding: bytes, as: UTF8.self), signal.cached)
        }
        var description = AppDescription()
        description.bundle = "com.example.news"
        var publisher = AppPublisher()
        publisher.id = "pub-1"
        description.publisher = publisher
        let news = AppIdentity(id: "tv.example.news", capabilities: [.signals], description: description)
        let sports = AppIdentity(id: "tv.example.sports", capabilities: [.signals], description: description)
        let anonymous = AppIdentity(id: "uid:1000", capabilities: [.signals])

        let toNews = try await received(news)
        #expect(
            toNews.0
                == #"{"app":{"bundle":"com.example.news","id":"tv.example.news","publisher_id":"pub-1"},"privacy":{"limit_ad_tracking":false},"request_id":"r"}"#
        )
        #expect(!toNews.1)
        // Another app of the same publisher, under the same privacy state: asked anew, as a
        // program's answer is per app.
        let toSports = try await received(sports)
        #expect(!toSports.1 && toSports.0.contains(#""id":"tv.example.sports""#))
        #expect(try await received(news) == (toNews.0, true))
        #expect(try await received(sports) == (toSports.0, true))
        // An app the registry does not list has no bundle or publisher; a request of no app no app.
        #expect(
            try await received(anonymous).0
                == #"{"app":{"bundle":null,"id":"uid:1000","publisher_id":null},"privacy":{"limit_ad_tracking":false},"request_id":"r"}"#
        )
        #expect(
            try await received(nil).0 == #"{"app":null,"privacy":{"limit_ad_tracking":false},"request_id":"r"}"#)
        await collector.shutdown()
    }
}
