import Foundation
import Mediation
import SecureSignals
import SharedTypes

/// An ad server that answers VAST: the line item's `parameter` is the ad tag URL (its
/// `[TIMESTAMP]` and `[CACHEBUSTING]` macros filled per request). Serves rewarded video.
///
/// Line item options: `timeout_ms` (each tag or wrapper fetch, default 2000), `reward_type`
/// (default "reward") and `reward_amount` (default 1).
public struct VASTAdNetwork: AdNetworkAdapter {
    public static let name = "vast"
    public static let adapterVersion = SemanticVersion(1, 0, 0)
    /// None: each line item names its own ad tag.
    public static let setupKeys: OptionKeys = []
    public static let lineItemOptionKeys: OptionKeys = ["timeout_ms", "reward_type", "reward_amount"]
    /// The newest VAST version it reads.
    public let sdkVersion = SemanticVersion(4, 2, 0)

    private let services: AdNetworkServices

    public static func problem(
        with item: LineItem, format: AdFormat, currency: String, setup: AdapterOptions, signalAdapters: Set<String>
    ) -> String? {
        guard format == .rewarded else { return "the vast network serves rewarded video, not \(format.rawValue) ads" }
        let scheme = item.parameter.split(separator: ":", maxSplits: 1).first?.lowercased()
        guard scheme == "http" || scheme == "https" else {
            return "parameter must be the VAST ad tag's http(s) URL, not '\(item.parameter)'"
        }
        do {
            _ = try item.options.reward()
            _ = try item.options.timeoutMilliseconds("timeout_ms", default: 2000)
        } catch {
            return error.message
        }
        return nil
    }

    public init(setup: AdNetworkSetup) async throws {
        services = setup.services
    }

    public func loadRewardedAd(_ request: NetworkAdRequest) async throws(AdLoadError) -> NetworkAd {
        var video = RewardedVideo(services: services, request: request)
        let reward = try request.options.reward()
        video.fetchTimeout = .milliseconds(try request.options.timeoutMilliseconds("timeout_ms", default: 2000))
        guard !request.parameter.isEmpty else {
            throw AdLoadError(.invalidRequest, "the line item's parameter must be the VAST ad tag URL")
        }
        return try await video.load(tagURL: request.parameter, reward: reward)
    }
}
