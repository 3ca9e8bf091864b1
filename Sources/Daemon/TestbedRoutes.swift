import Foundation
import Hummingbird
import Logging
import Mediation
import Timing

/// Routes only the testbed daemon installs: the product binary never has them.
enum TestbedRoutes {
    /// `POST /testbed/clock` `{"advance_ms": N}`: moves the ad store's clock forward, so that
    /// tests of expiry and retry schedules run through the socket without waiting.
    static func installClock(on router: Router<DaemonRequestContext>, clock: AdjustableClock, logger: Logger) {
        router.post("/testbed/clock") { request, _ in
            let body = try await JSONRequest.decode(ClockBody.self, from: request)
            clock.advance(by: .milliseconds(body.advanceMilliseconds))
            logger.notice("testbed clock moved", metadata: ["advance_ms": "\(body.advanceMilliseconds)"])
            return try JSONResponse.make(["advanced_ms": body.advanceMilliseconds])
        }
    }

    struct ClockBody: Decodable {
        var advanceMilliseconds: Int

        enum CodingKeys: String, CodingKey, CaseIterable { case advanceMilliseconds = "advance_ms" }

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            advanceMilliseconds = try decoder.container(keyedBy: CodingKeys.self).positive(
                .advanceMilliseconds, default: 0, max: 86_400_000)
        }
    }
}
