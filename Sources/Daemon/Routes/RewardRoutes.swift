import API
import Hummingbird
import Mediation
import SharedTypes
import Timing

/// The reward ledger on the socket API: an app lists and claims the rewards of the ads it
/// showed (an app with `inspect` lists every app's, and claims only its own).
struct RewardRoutes {
    let rewards: any RewardLedger
    let clock: WallClock<AdjustableClock>

    func addRoutes(to router: EndpointRouter) {
        router.add(Endpoints.rewards, use: list)
        // A claim is a commit of its own: refused up front while the state database takes none.
        router.add(Endpoints.claimReward, use: claim)
    }

    @Sendable func list(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        let name = request.uri.queryParameters.get("state") ?? RewardState.unclaimed.rawValue
        guard let state = RewardState(rawValue: name) else {
            throw APIError(
                .badRequest, .invalidRequest, "state: must be unclaimed, claimed or all, not \"\(name)\"")
        }
        return RewardList(
            rewards: try await rewards.rewards(app: owner(context), state: state, now: clock.nowMilliseconds))
    }

    @Sendable func claim(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        let id = try context.pathParameter("transaction_id")
        switch try await rewards.claim(id, app: context.app?.id ?? "", now: clock.nowMilliseconds) {
        case .claimed(let reward): return ClaimedReward(reward: reward)
        case .alreadyClaimed(let reward): throw RewardAlreadyClaimed(reward: reward)
        case .notFound: throw APIError(.notFound, .unknownReward, "no reward '\(id)' of this app")
        }
    }

    /// Whose rewards an app may list: its own; with `inspect`, every app's (nil). A request no
    /// app was recognized for sees none (an id no app has).
    private func owner(_ context: DaemonRequestContext) -> String? {
        guard let app = context.app else { return "" }
        return app.may(.inspect) ? nil : app.id
    }
}

/// 409 `already_claimed`, with the reward as it was claimed.
struct RewardAlreadyClaimed: APIFailure {
    var reward: EarnedReward
    var errorCode: APIErrorCode { .alreadyClaimed }
    var message: String { "reward '\(reward.transactionID)' was already claimed" }
    var status: HTTPResponse.Status { .conflict }

    func encodeDetails(to container: inout KeyedEncodingContainer<AnyCodingKey>) throws {
        try container.encode(reward, forKey: AnyCodingKey("reward"))
    }
}
