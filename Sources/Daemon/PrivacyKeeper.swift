import Consent
import Logging
import Mediation
import SecureSignals
import SharedTypes
import Timing

/// The privacy states, the device's and each app's own, and the decisions in force for every
/// app, changed one change at a time: each is decoded, kept durably (`records`), judged and
/// handed to the collector and the ad store before the next begins, so both always hold the
/// same decisions, and a reload's new `privacy` settings re-judge the states last put in force,
/// never older ones. A state is checked at the daemon's wall time (`clock`): a TC string dated
/// more than a day ahead is refused; its age is judged by the collector and the store at each
/// request, on the same clock.
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
    private var settings: PrivacySettings
    /// The daemon's wall clock: what a string's dates are judged by.
    private let clock: any EpochClock
    /// The device's state (the platform's), and each app's own, by app id.
    private(set) var device: PrivacyState?
    private(set) var apps: [String: PrivacyState] = [:]
    /// The decisions in force: the strings decoded once, for the decoded view too.
    private(set) var policies = PrivacyPolicies.unset
    private var changing = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(
        collector: SignalCollector<AdjustableClock>, ads: AdStore<AdjustableClock>, settings: PrivacySettings,
        records: (any PrivacyRecords)?, clock: any EpochClock, logger: Logger
    ) {
        self.collector = collector
        self.ads = ads
        self.settings = settings
        self.clock = clock
        self.records = records
        self.logger = logger
    }

    /// Puts the kept states in force: at start, before any request. A state that cannot be
    /// read, or whose strings no longer decode or pass the rules now, is left out (its app stands under the device's;
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
        // The rules that need no clock: a kept state is not dropped because the device's clock
        // is not yet set at boot (its dates would then all look ahead of it).
        func decodable(_ state: PrivacyState, _ scope: PrivacyScope) -> Bool {
            do {
                try DecodedConsent(state).validate(at: nil)
                return true
            } catch {
                logger.error(
                    "a kept privacy state no longer decodes or breaks a TCF rule; its scope has none until it is set again",
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

    /// The decisions app `id` is served under now.
    func policy(for id: String?) -> ConsentPolicy { policies.policy(for: id, at: clock.nowMilliseconds) }

    /// Puts `state` in force as app `id`'s own (the device's when `id` is nil); nil removes it.
    /// It is kept durably first: once this returns, it survives a crash and a power cut. A
    /// string that cannot be decoded or breaks a rule of `TCFRules` now, or a state the database
    /// does not take, throws, and the states in force stay.
    func set(_ state: PrivacyState?, for id: String?) async throws(ChangeFailure) {
        // Decoded before its turn: a long string holds no other change up.
        if let state {
            do {
                _ = try DecodedConsent(state, at: clock.nowMilliseconds)
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

    /// A reload's `privacy` (minimum policy version, longest age of consent): the states in
    /// force are judged again by it.
    func setSettings(_ settings: PrivacySettings) async {
        await begin()
        defer { end() }
        guard settings != self.settings else { return }
        self.settings = settings
        await apply(judged())
    }

    /// The decisions of every state held now (the device's change every app's).
    private func judged() -> PrivacyPolicies {
        PrivacyPolicies(
            standing: judge(device), apps: apps.mapValues { judge(PrivacyState.inForce(own: $0, device: device)) })
    }

    /// The decisions of `state`. Its strings were decoded and checked when it was set: only
    /// decoded again here, which cannot fail (one that somehow did counts as no consent); the
    /// collector and the store judge it at each request's time.
    private func judge(_ state: PrivacyState?) -> ConsentPolicy {
        guard let state, let decoded = try? DecodedConsent(state) else { return .unset }
        return ConsentPolicy(state: state, decoded: decoded, settings: settings, at: clock.nowMilliseconds)
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
