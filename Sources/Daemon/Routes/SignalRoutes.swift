import API
import Consent
import Foundation
import Hummingbird
import SharedTypes
import Timing

/// The signal half of the socket API: health, adapters, signals, the privacy state, resets,
/// recipients.
struct SignalRoutes {
    let state: DaemonState

    func addRoutes(to router: EndpointRouter) {
        router.add(Endpoints.health, use: health)
        router.add(Endpoints.adapters, use: adapters)
        router.add(Endpoints.signals, use: signals)
        router.add(Endpoints.privacy, use: privacy)
        router.add(Endpoints.setPrivacy, use: setPrivacy)
        router.add(Endpoints.clearPrivacy, use: clearPrivacy)
        router.add(Endpoints.decodedPrivacy, use: decodedPrivacy)
        router.add(Endpoints.resetAdapter, use: reset)
        router.add(Endpoints.recipients, use: recipients)
    }

    @Sendable func health(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        let statuses = await state.statuses()
        var counts: [String: Int] = [:]
        for status in statuses { counts[status.state.rawValue, default: 0] += 1 }
        let uptime = ContinuousClock.now - state.startedAt
        var warnings = state.warnings
        if let outage = state.stateHealth.outage {
            warnings.append(StateWatch.describe(outage))
        }
        return HealthReport(
            status: state.stateHealth.isAvailable ? "ok" : "degraded", adapters: counts,
            uptimeSeconds: Double(uptime.components.seconds), version: DaemonVersion.current, warnings: warnings)
    }

    @Sendable func adapters(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        AdapterList(adapters: await state.statuses())
    }

    @Sendable func signals(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        let body = try await request.decode(as: SignalsBody.self, context: context)
        if let asked = body.timeoutMilliseconds,
            case let deadline = Int(milliseconds(await state.collector.requestTimeout)),
            asked > deadline
        {
            throw StrictJSON.Failure(
                path: "timeout_ms", reason: "must be at most \(deadline) (deadlines.request_timeout_ms), not \(asked)")
        }
        let result = await state.collector.collect(
            requestID: body.requestID, adapters: body.adapters,
            timeout: body.timeoutMilliseconds.map { .milliseconds($0) })
        return result
    }

    @Sendable func privacy(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        PrivacyAnswer(privacy: await state.privacy.policy.state)
    }

    @Sendable func setPrivacy(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator
    {
        let privacy = try await request.decode(as: PrivacyBody.self, context: context).privacy
        try await state.privacy.set(privacy)
        state.logger.info("privacy state set", metadata: ["limit_ad_tracking": "\(privacy.limitAdTracking)"])
        return PrivacyAnswer(privacy: privacy)
    }

    /// The consent strings in force, decoded: `{}` when none is set.
    @Sendable func decodedPrivacy(_ request: Request, context: DaemonRequestContext) async throws
        -> some ResponseGenerator
    {
        await state.privacy.policy.decoded.json
    }

    /// Back to no state at all: no consent, as before the platform first set one.
    @Sendable func clearPrivacy(_ request: Request, context: DaemonRequestContext) async throws
        -> some ResponseGenerator
    {
        try await state.privacy.set(nil)
        state.logger.info("privacy state cleared")
        return PrivacyAnswer(privacy: nil)
    }

    /// Each recipient's keys: where they come from, their ids, and how fresh a fetched set is.
    @Sendable func recipients(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator
    {
        RecipientList(recipients: await state.collector.recipientStatuses())
    }

    @Sendable func reset(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        let name = try context.pathParameter("name")
        try await state.collector.reset(adapter: name)
        state.logger.info("adapter reset", metadata: ["adapter": "\(name)"])
        return AdapterReset(adapter: name)
    }
}
