import API
import ArgumentParser
import Client
import FoundationEssentials
import SharedTypes

struct RewardsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rewards",
        abstract: "List the rewards this user earned (root: everyone's), or claim one.",
        discussion: """
            A reward earned watching a rewarded ad is kept by the daemon until it is claimed, \
            across crashes and restarts. Its transaction id is the one in the reward_earned event \
            and in the SSV callback.

            Examples:
              secure-signals rewards
              secure-signals rewards --state all --json
              secure-signals rewards claim 0b6f5f9e-4c1e-4b6a-9f77-2d3c1f0e8a11
            """,
        subcommands: [List.self, Claim.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List rewards, oldest first.")
        @OptionGroup var connection: ConnectionOptions

        @Option(help: "unclaimed, claimed or all.")
        var state = "unclaimed"

        func validate() throws {
            guard ["unclaimed", "claimed", "all"].contains(state) else {
                throw ValidationError("--state must be unclaimed, claimed or all")
            }
        }

        func run() async throws {
            let query = [("state", state)]
            if connection.json { return try await printRaw(connection, Endpoints.rewards, query: query) }
            let reply = try await connection.client.request(Endpoints.rewards, query: query).successful()
            let rewards = try WireFormat.decoder().decode(RewardList.self, from: reply.body).rewards
            guard !rewards.isEmpty else { return print("no \(state == "all" ? "" : state + " ")rewards") }
            print(
                Table(
                    header: ["TRANSACTION", "REWARD", "AD UNIT", "USER", "EARNED", "CLAIMED"],
                    rows: rewards.map { reward in
                        [
                            reward.transactionID, "\(reward.amountText) \(reward.rewardType)", reward.adUnit,
                            reward.userID ?? "-", timestamp(reward.earnedAt), reward.claimedAt.map(timestamp) ?? "-",
                        ]
                    }))
        }
    }

    struct Claim: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Claim a reward; claiming it again fails with already_claimed.")
        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The reward's transaction id.")
        var transactionID: String

        func run() async throws {
            let claim = Endpoints.claimReward
            if connection.json { return try await printRaw(connection, claim, transactionID, body: Data("{}".utf8)) }
            let reply = try await connection.client.request(claim, transactionID, json: Data("{}".utf8)).successful()
            let reward = try WireFormat.decoder().decode(ClaimedReward.self, from: reply.body).reward
            print("claimed: \(reward.amountText) \(reward.rewardType) (\(reward.transactionID))")
        }
    }
}

/// Wall-clock milliseconds as an ISO 8601 time, to the second.
private func timestamp(_ milliseconds: Int64) -> String {
    Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601)
}
