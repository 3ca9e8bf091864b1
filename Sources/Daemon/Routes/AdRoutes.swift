import API
import FoundationEssentials
import Hummingbird
import Mediation
import NIOCore
import SharedTypes
import Timing

/// The mediation half of the socket API: loads, each ad's lifecycle, and the event stream.
struct AdRoutes {
    let ads: AdStore<AdjustableClock>
    let limits: ClientLimits

    func addRoutes(to router: EndpointRouter) {
        router.add(Endpoints.adUnits, use: units)
        router.add(Endpoints.ad, use: ad)
        router.add(Endpoints.events, use: events)
        router.add(Endpoints.loadAd, use: load)
        router.add(Endpoints.impression, use: impression)
        router.add(Endpoints.click, use: click)
        router.add(Endpoints.show, use: show)
        router.add(Endpoints.progress, use: progress)
        router.add(Endpoints.dismiss, use: dismiss)
        router.add(Endpoints.playbackError, use: playbackError)
    }

    @Sendable func load(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        let body = try await request.decode(as: AdLoadBody.self, context: context)
        if body.test, context.app?.may(.test) != true {
            throw APIError(
                .forbidden, .notPermitted,
                "app '\(context.app?.id ?? "?")' is not granted test (apps.registered.*.capabilities): a test load needs it"
            )
        }
        var load = body.request
        load.app = context.app
        return try await ads.load(load).get()
    }

    /// Each ad unit as the calling app sees it: caps, whether capped, whether ready.
    @Sendable func units(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        AdUnitList(adUnits: await ads.unitStatuses(app: context.app?.id))
    }

    @Sendable func ad(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        try await ads.ad(try context.pathParameter("id"), by: context.app)
    }

    @Sendable func impression(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator
    {
        try await ads.impression(try context.pathParameter("id"), by: context.app)
    }

    @Sendable func click(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        let body = try await request.decode(as: ClickBody.self, context: context)
        return try await ads.click(try context.pathParameter("id"), asset: body.asset, by: context.app)
    }

    @Sendable func show(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        try await ads.show(try context.pathParameter("id"), by: context.app)
    }

    @Sendable func progress(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        let body = try await request.decode(as: ProgressBody.self, context: context)
        return try await ads.progress(try context.pathParameter("id"), body.event, by: context.app)
    }

    @Sendable func dismiss(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        try await ads.dismiss(try context.pathParameter("id"), by: context.app)
    }

    @Sendable func playbackError(_ request: Request, context: DaemonRequestContext) async throws
        -> some ResponseGenerator
    {
        let body = try await request.decode(as: PlaybackErrorBody.self, context: context)
        return try await ads.playbackError(try context.pathParameter("id"), code: body.code, by: context.app)
    }

    /// At most `limits.max_event_streams` at once, `max_event_streams_per_peer` of one uid;
    /// each holds its slot until its connection closes. A HEAD subscribes to nothing.
    @Sendable func events(_ request: Request, context: DaemonRequestContext) async throws -> Response {
        let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]
        guard request.method != .head else { return Response(status: .ok, headers: headers) }
        let filter = EventHub.Filter(
            adUnit: request.uri.queryParameters.get("ad_unit"), adID: request.uri.queryParameters.get("ad_id"),
            app: context.app)
        // A client that reconnects says the id it saw last; it gets what it missed first.
        var after: UInt64?
        if let last = request.headers.first(where: { $0.name.canonicalName == "last-event-id" })?.value {
            guard let id = UInt64(last.trimmingWhitespace), id <= UInt64(Int64.max) else {
                throw APIError(.badRequest, .invalidRequest, "Last-Event-ID: must be an event's id, not \"\(last)\"")
            }
            after = id
        }
        try limits.holdStream(context)
        let events = ads.events.subscribe(
            filter, after: after, buffer: limits.limits.eventStreamBuffer, fellBehind: limits.streamBehind(context))
        return Response(
            status: .ok, headers: headers,
            body: EventStream.body(events, connectionClosed: context.channel.closeFuture) { event in
                "id: \(event.sequence)\nevent: \(event.name.rawValue)\ndata: \(event.json())\n\n"
            })
    }
}
