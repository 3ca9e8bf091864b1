import Consent
import Mediation
import SecureSignals
import SharedTypes
import Timing

/// The privacy state in force and its decisions, changed one change at a time: each is decoded,
/// judged and handed to the collector and the ad store before the next begins, so both always
/// hold the same state, and a reload's new minimum policy version re-judges the state last put
/// in force, never an older one.
actor PrivacyKeeper {
    private let collector: SignalCollector<AdjustableClock>
    private let ads: AdStore<AdjustableClock>
    private var minimumTCFPolicyVersion: Int
    /// The decisions in force: the strings decoded once, for the decoded view too.
    private(set) var policy = ConsentPolicy.unset
    private var changing = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(collector: SignalCollector<AdjustableClock>, ads: AdStore<AdjustableClock>, minimumTCFPolicyVersion: Int) {
        self.collector = collector
        self.ads = ads
        self.minimumTCFPolicyVersion = minimumTCFPolicyVersion
    }

    /// Puts `state` in force (nil: none, no consent). A string that cannot be decoded throws,
    /// and the state in force stays.
    func set(_ state: PrivacyState?) async throws(ConsentStringError) {
        // Decoded before its turn: a long string holds no other change up.
        let decoded = try state.map { (state) throws(ConsentStringError) in try DecodedConsent(state) }
        await begin()
        defer { end() }
        await apply(
            ConsentPolicy(
                state: state, decoded: decoded ?? DecodedConsent(), minimumTCFPolicyVersion: minimumTCFPolicyVersion))
    }

    /// A reload's `privacy.min_tcf_policy_version`: the state in force is judged again by it.
    func setMinimumTCFPolicyVersion(_ version: Int) async {
        await begin()
        defer { end() }
        guard version != minimumTCFPolicyVersion else { return }
        minimumTCFPolicyVersion = version
        await apply(ConsentPolicy(state: policy.state, decoded: policy.decoded, minimumTCFPolicyVersion: version))
    }

    /// Hands `policy` to the collector and the ad store; it is the one in force (and shown)
    /// once both have it.
    private func apply(_ policy: ConsentPolicy) async {
        await collector.setPrivacy(policy)
        await ads.setPrivacy(policy)
        self.policy = policy
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
