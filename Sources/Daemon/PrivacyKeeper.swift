import Consent
import Mediation
import SecureSignals
import SharedTypes
import Timing

/// The privacy states, the device's and each app's own, and the decisions in force for every
/// app, changed one change at a time: each is decoded, judged and handed to the collector and
/// the ad store before the next begins, so both always hold the same decisions, and a reload's
/// new minimum policy version re-judges the states last put in force, never older ones.
actor PrivacyKeeper {
    private let collector: SignalCollector<AdjustableClock>
    private let ads: AdStore<AdjustableClock>
    private var minimumTCFPolicyVersion: Int
    /// The device's state (the platform's), and each app's own, by app id.
    private(set) var device: PrivacyState?
    private(set) var apps: [String: PrivacyState] = [:]
    /// The decisions in force: the strings decoded once, for the decoded view too.
    private(set) var policies = PrivacyPolicies.unset
    private var changing = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(collector: SignalCollector<AdjustableClock>, ads: AdStore<AdjustableClock>, minimumTCFPolicyVersion: Int) {
        self.collector = collector
        self.ads = ads
        self.minimumTCFPolicyVersion = minimumTCFPolicyVersion
    }

    /// The state app `id` set itself (nil: none; the device's stands for it); the device's when
    /// `id` is nil.
    func state(of id: String?) -> PrivacyState? {
        id.map { apps[$0] } ?? device
    }

    /// The decisions app `id` is served under.
    func policy(for id: String?) -> ConsentPolicy { policies.policy(for: id) }

    /// Puts `state` in force as app `id`'s own (the device's when `id` is nil); nil removes it.
    /// A string that cannot be decoded throws, and the states in force stay.
    func set(_ state: PrivacyState?, for id: String?) async throws(ConsentStringError) {
        // Decoded before its turn: a long string holds no other change up.
        if let state { _ = try DecodedConsent(state) }
        await begin()
        defer { end() }
        var policies = self.policies
        if let id {
            apps[id] = state
            policies.apps[id] = state.map { judge(PrivacyState.inForce(own: $0, device: device)) }
        } else {
            device = state
            policies = judged()
        }
        await apply(policies)
    }

    /// A reload's `privacy.min_tcf_policy_version`: the states in force are judged again by it.
    func setMinimumTCFPolicyVersion(_ version: Int) async {
        await begin()
        defer { end() }
        guard version != minimumTCFPolicyVersion else { return }
        minimumTCFPolicyVersion = version
        await apply(judged())
    }

    /// The decisions of every state held now (the device's change every app's).
    private func judged() -> PrivacyPolicies {
        PrivacyPolicies(
            standing: judge(device), apps: apps.mapValues { judge(PrivacyState.inForce(own: $0, device: device)) })
    }

    /// The decisions of `state`. Its strings were decoded when it was set: decoding them again
    /// cannot fail, and one that somehow did counts as no consent.
    private func judge(_ state: PrivacyState?) -> ConsentPolicy {
        (try? ConsentPolicy(state, minimumTCFPolicyVersion: minimumTCFPolicyVersion)) ?? .unset
    }

    /// Hands `policies` to the collector and the ad store; they are the ones in force (and
    /// shown) once both have them.
    private func apply(_ policies: PrivacyPolicies) async {
        await collector.setPrivacy(policies)
        await ads.setPrivacy(policies)
        self.policies = policies
    }

    /// Waits until no other change is under way (the awaits inside one would let another in).
    private func begin() async {
        guard changing else {
            changing = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the turn to the next change waiting, if any.
    private func end() {
        if waiting.isEmpty {
            changing = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
