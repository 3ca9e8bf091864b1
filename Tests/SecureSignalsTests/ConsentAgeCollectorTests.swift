import Consent
import Foundation
import Logging
import SharedTypes
import SignalCrypto
import TestAdapters
import TestSupport
import Testing

@testable import SecureSignals

/// The collector judges a TC string's age by its own clock at each request: on a manual clock,
/// the same policy in force allows an identifier adapter until the clock passes the string's
/// `privacy.max_consent_age_days`, then denies it saying it expired, with no new policy set.
struct ConsentAgeCollectorTests {
    @Test func anIdentifierIsDeniedOnceTheClockPassesTheStringsAge() async throws {
        let clock = ManualClock()
        let key = try X25519PrivateKey()
        let config = KeyConfig(keyID: 3, publicKey: key.publicKey, aeads: [.aes128GCM])
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("consent-age-\(UUID().uuidString)")
        let collector = try SignalCollector(
            configuration: CollectorConfiguration(
                adapters: [
                    AdapterConfiguration(
                        name: "test-echo", recipients: ["bidder"], options: try EchoAdapter.decodeOptions([:]),
                        consent: ConsentRequirement(purposes: [1], identifier: true))
                ],
                recipients: ["bidder": Recipient(name: "bidder", sealer: try EnvelopeSealer(keyConfig: config))],
                stateDirectory: state),
            registry: AdapterRegistry(testAdapters), clock: clock, logger: Logger(label: "test"))
        await collector.initializeAll()
        // Last updated 394 days ago by the collector's wall clock (the real time it started at).
        var tc = ConsentStrings.TC.consentingToEverything(vendor: 755)
        tc.lastUpdated = ConsentStrings.today - 394 * 86_400_000
        tc.created = tc.lastUpdated
        let privacy = PrivacyState(limitAdTracking: false, tcfConsent: tc.string, gdprApplies: true)
        await collector.setPrivacy(PrivacyPolicies(standing: try ConsentPolicy(privacy, at: ConsentStrings.now)))
        #expect(await collector.collect(requestID: "fresh").errors.isEmpty)
        #expect(await collector.consentDenial(of: "test-echo", for: nil) == nil)
        clock.advance(by: .seconds(2 * 86_400))
        let expired = await collector.collect(requestID: "old")
        #expect(expired.signals.isEmpty && expired.errors.first?.code == .consentMissing)
        #expect(expired.errors.first?.message.hasPrefix("TCF: the TC string expired: last updated") == true)
        #expect(await collector.consentDenial(of: "test-echo", for: nil) == expired.errors.first?.message)
        await collector.shutdown()
        try? FileManager.default.removeItem(at: state)
    }
}
