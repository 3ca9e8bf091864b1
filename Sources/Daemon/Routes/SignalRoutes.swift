import API
import Consent
import FoundationEssentials
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
        router.add(Endpoints.privacyDecisions, use: privacyDecisions)
        router.add(Endpoints.devicePrivacy, use: devicePrivacy)
        router.add(Endpoints.setDevicePrivacy, use: setDevicePrivacy)
        router.add(Endpoints.clearDevicePrivacy, use: clearDevicePrivacy)
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
            timeout: body.timeoutMilliseconds.map { .milliseconds($0) }, app: context.app)
        return result
    }

    /// The calling app's own privacy state (null: none; the device's stands for it).
    @Sendable func privacy(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        PrivacyAnswer(privacy: await state.privacy.state(of: try context.requireApp().id))
    }

    /// Sets the calling app's own state (`null` removes it). What only the device may say
    /// (`gpc`, `coppa`) is refused.
    @Sendable func setPrivacy(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator
    {
        let app = try context.requireApp()
        let privacy = try await request.decode(as: PrivacyBody.self, context: context).privacy
        if let key = privacy?.deviceOnlyKeys.first {
            throw StrictJSON.Failure(
                path: "privacy.\(key)", reason: "is the device's to say (PUT /v1/device/privacy), not an app's")
        }
        try await state.privacy.set(privacy, for: app.id)
        state.logger.info(
            privacy == nil ? "privacy state cleared" : "privacy state set",
            metadata: ["app": "\(app.id)", "limit_ad_tracking": "\(privacy?.limitAdTracking ?? false)"])
        return PrivacyAnswer(privacy: privacy)
    }

    /// The consent strings in force for the calling app, decoded, with whether its TC string
    /// has expired by now: `{}` when none is set.
    @Sendable func decodedPrivacy(_ request: Request, context: DaemonRequestContext) async throws
        -> some ResponseGenerator
    {
        await state.privacy.policy(for: try context.requireApp().id).decodedView
    }

    /// The calling app back to no state of its own: the device's stands for it.
    @Sendable func clearPrivacy(_ request: Request, context: DaemonRequestContext) async throws
        -> some ResponseGenerator
    {
        let app = try context.requireApp()
        try await state.privacy.set(nil, for: app.id)
        state.logger.info("privacy state cleared", metadata: ["app": "\(app.id)"])
        return PrivacyAnswer(privacy: nil)
    }

    /// The device's state: what stands for every app that set none.
    @Sendable func devicePrivacy(_ request: Request, context: DaemonRequestContext) async throws
        -> some ResponseGenerator
    {
        PrivacyAnswer(privacy: await state.privacy.state(of: nil))
    }

    /// Sets the device's state (`null` removes it: no consent for apps that set none).
    @Sendable func setDevicePrivacy(_ request: Request, context: DaemonRequestContext) async throws
        -> some ResponseGenerator
    {
        let privacy = try await request.decode(as: PrivacyBody.self, context: context).privacy
        try await state.privacy.set(privacy, for: nil)
        state.logger.info(
            privacy == nil ? "device privacy state cleared" : "device privacy state set",
            metadata: [
                "app": "\(context.app?.id ?? "-")", "limit_ad_tracking": "\(privacy?.limitAdTracking ?? false)",
            ])
        return PrivacyAnswer(privacy: privacy)
    }

    /// Back to no device state at all: no consent for apps that set none.
    @Sendable func clearDevicePrivacy(_ request: Request, context: DaemonRequestContext) async throws
        -> some ResponseGenerator
    {
        try await state.privacy.set(nil, for: nil)
        state.logger.info("device privacy state cleared", metadata: ["app": "\(context.app?.id ?? "-")"])
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
        state.logger.info("adapter reset", metadata: ["adapter": "\(name)", "app": "\(context.app?.id ?? "-")"])
        return AdapterReset(adapter: name)
    }
}
