import Hummingbird
import Logging
import SharedTypes
import Timing

/// Routes only the testbed daemon has: the product binary never registers them.
struct TestbedRoutes {
    let clock: AdjustableClock
    let logger: Logger

    func addRoutes(to router: Router<DaemonRequestContext>) {
        router.post("/testbed/clock", use: advanceClock)
    }

    /// `POST /testbed/clock` `{"advance_ms": N}`: moves the daemon's clock forward, so that
    /// tests of expiry, retry schedules and caches run through the socket without waiting.
    @Sendable func advanceClock(_ request: Request, context: DaemonRequestContext) async throws
        -> some ResponseGenerator
    {
        let body = try await request.decode(as: ClockBody.self, context: context)
        clock.advance(by: .milliseconds(body.advanceMilliseconds))
        logger.notice("testbed clock moved", metadata: ["advance_ms": "\(body.advanceMilliseconds)"])
        return ["advanced_ms": body.advanceMilliseconds]
    }

    @Settings
    struct ClockBody: Decodable {
        @WireName("advance_ms") @Bounds(1...86_400_000) var advanceMilliseconds = 0
    }
}
