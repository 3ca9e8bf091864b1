import API
import Hummingbird
import SharedTypes
import Timing

/// `GET /v1/apps`: every app the daemon knows, and what each is doing now.
struct AppRoutes {
    let state: DaemonState
    let limits: ClientLimits

    func addRoutes(to router: EndpointRouter) {
        router.add(Endpoints.apps, use: apps)
    }

    /// The registered apps, then the others seen since the start or with a privacy state of
    /// their own, by id.
    @Sendable func apps(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        let registered = state.access.apps.registered
        let seen = state.appActivity.apps
        let privacy = await state.privacy.apps
        let now = ContinuousClock.now
        let ids = Set(registered.keys).union(seen.keys).union(privacy.keys)
        let apps = ids.sorted().map { id in
            let app = registered[id]
            return AppStatus(
                id: id, registered: app != nil,
                capabilities: (app.map { Set($0.capabilities) } ?? seen[id]?.app.capabilities ?? []).sorted(),
                hosts: app?.hosts ?? [], requestsInFlight: limits.requests.held(by: id),
                eventStreams: limits.eventStreams.held(by: id),
                lastSeenAgo: seen[id].map { $0.at.duration(to: now).wholeMilliseconds }, privacy: privacy[id])
        }
        return AppList(apps: apps)
    }
}
