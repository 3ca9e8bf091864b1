import Consent
import Logging
import Mediation
import SecureSignals
import SharedTypes
import Timing

/// The privacy states, the device's and each app's own, and the decisions in force for every
/// app, changed one change at a time: each is decoded, kept durably (`records`), judged and
/// handed to the collector and the ad store before the next begins, so both always hold the
/// same decisions, and a reload's new minimum policy version re-judges the states last put in
/// force, never older ones.
actor PrivacyKeeper {
    /// Why a change was not made: the state in force stays.
    enum ChangeFailure: Error {
        /// A consent string that cannot be decoded.
        case invalid(ConsentStringError)
        /// The state database did not take it.
        case notKept(any Error)
    }

    private let collector: SignalCollector<AdjustableClock>
    private let ads: AdStore<AdjustableClock>
    /// Where the states are kept across restarts; nil keeps them in memory alone.
    private let records: (any PrivacyRecords)?
    private let logger: Logger
    private var minimumTCFPolicyVersion: Int
    /// The device's state (the platform's), and each app's own, by app id.
    private(set) var device: PrivacyState?
    private(set) var apps: [String: PrivacyState] = [:]
    /// The decisions in force: the strings decoded once, for the decoded view too.
    private(set) var policies = PrivacyPolicies.unset
    private var changing = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(
        collector: SignalCollector<AdjustableClock>, ads: AdStore<AdjustableClock>, minimumTCFPolicyVersion: Int,
        records: (any PrivacyRecords)?, logger: Logger
    ) {
        self.collector = collector
        self.ads = ads
        self.minimumTCFPolicyVersion = minimumTCFPolicyVersion
        self.records = records
        self.logger = logger
    }

    /// Puts the kept states in force: at start, before any request. A state that cannot be
    /// read, or whose strings no longer decode, is left out (its app stands under the device's;
    /// without the device's, no consent) and said in the log, never its strings.
    func restore() async {
        guard let records else { return }
        let stored: StoredPrivacy
        do {
            stored = try await records.all()
        } catch {
            logger.error(
                "the privacy states could not be read from the state database; none is in force until set again",
                metadata: ["error": "\(error)"])
            return
        }
        for (scope, reason) in stored.unreadable {
            logger.error(
                "a kept privacy state cannot be read; its scope has none until it is set again",
                metadata: ["scope": "\(Self.name(scope))", "reason": "\(reason)"])
        }
        func decodable(_ state: PrivacyState, _ scope: PrivacyScope) -> Bool {
            do {
                _ = try DecodedConsent(state)
                return true
            } catch {
                logger.error(
                    "a kept privacy state no longer decodes; its scope has none until it is set again",
                    metadata: ["scope": "\(Self.name(scope))", "reason": "\(error)"])
                return false
            }
        }
        await begin()
        defer { end() }
        device = stored.device.flatMap { decodable($0, .device) ? $0 : nil }
        apps = stored.apps.filter { decodable($0.value, .app($0.key)) }
        await apply(judged())
        logger.info("privacy states restored", metadata: ["apps": "\(apps.count)", "device": "\(device != nil)"])
    }

    private static func name(_ scope: PrivacyScope) -> String {
        switch scope {
        case .device: "device"
        case .app(let id): id
        }
    }

    /// The state app `id` set itself (nil: none; the device's stands for it); the device's when
    /// `id` is nil.
    func state(of id: String?) -> PrivacyState? {
        id.map { apps[$0] } ?? device
    }

    /// The decisions app `id` is served under.
    func policy(for id: String?) -> ConsentPolicy { policies.policy(for: id) }

    /// Puts `state` in force as app `id`'s own (the device's when `id` is nil); nil removes it.
    /// It is kept durably first: once this returns, it survives a crash and a power cut. A
    /// string that cannot be decoded, or a state the database does not take, throws, and the
    /// states in force stay.
    func set(_ state: PrivacyState?, for id: String?) async throws(ChangeFailure) {
        // Decoded before its turn: a long string holds no other change up.
        if let state {
            do {
                _ = try DecodedConsent(state)
            } catch {
                throw .invalid(error)
            }
        }
        await begin()
        defer { end() }
        if let records {
            do {
                // Kept even if the caller hangs up: what is on disk is what is in force.
                try await uncancelled { try await records.set(state, for: id.map { .app($0) } ?? .device) }
            } catch {
                logger.error(
                    "a privacy state could not be kept in the state database; the one in force stays",
                    metadata: ["scope": "\(id ?? "device")", "error": "\(error)"])
                throw .notKept(error)
            }
        }
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
