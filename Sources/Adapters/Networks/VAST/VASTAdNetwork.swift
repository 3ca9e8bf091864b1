import FoundationEssentials
import Mediation
import SecureSignals
import SharedTypes

/// An ad server that answers VAST: the line item's `parameter` is the ad tag URL, its macros
/// filled per request: `[TIMESTAMP]` and `[CACHEBUSTING]`, and the IAB's request macros for the
/// asking app, its advertising id and its privacy state (`VASTMacros.expand(_:request:now:)`).
/// Serves rewarded video. It takes no setup: each line item names its own ad tag.
public struct VASTAdNetwork: AdNetworkAdapter {
    public static let name = "vast"
    public static let adapterVersion = SemanticVersion(1, 0, 0)
    /// The newest VAST version it reads.
    public let sdkVersion = SemanticVersion(4, 2, 0)

    /// A line item's `options`.
    @Settings
    public struct LineItemOptions: Decodable, Sendable, Equatable, RewardOptions {
        /// Each tag or wrapper fetch's.
        @WireName("timeout_ms") @Bounds(1...60_000) var timeoutMilliseconds = 2000
        var rewardType = "reward"
        var rewardAmount = 1.0
        /// The ad tag a test load asks instead of `parameter` (the ad server's test creative);
        /// without one, a test load does not ask this line item: VAST has no test flag.
        var testTag: String?
    }

    private let services: AdNetworkServices

    public static func problem(
        with item: LineItem, options: LineItemOptions, setup: NoOptions, format: AdFormat, currency: String,
        signalAdapters: Set<String>
    ) -> String? {
        guard format == .rewarded else { return "the vast network serves rewarded video, not \(format.rawValue) ads" }
        func isWeb(_ url: String) -> Bool {
            let scheme = url.split(separator: ":", maxSplits: 1).first?.lowercased()
            return scheme == "http" || scheme == "https"
        }
        guard isWeb(item.parameter) else {
            return "parameter must be the VAST ad tag's http(s) URL, not '\(item.parameter)'"
        }
        if let tag = options.testTag, !isWeb(tag) {
            return "options.test_tag must be an http(s) URL, not '\(redactedURL(tag))'"
        }
        return nil
    }

    public init(setup: NoOptions, context: AdNetworkContext) async throws {
        services = context.services
    }

    public func loadRewardedAd(_ request: NetworkAdRequest) async throws(AdLoadError) -> NetworkAd {
        let options = try lineItemOptions(of: request)
        var video = RewardedVideo(services: services, request: request)
        video.fetchTimeout = .milliseconds(options.timeoutMilliseconds)
        guard !request.parameter.isEmpty else {
            throw AdLoadError(.invalidRequest, "the line item's parameter must be the VAST ad tag URL")
        }
        guard request.test else { return try await video.load(tagURL: request.parameter, reward: options.reward) }
        guard let tag = options.testTag else {
            throw AdLoadError(
                .networkError, "a test load asks a VAST line item's options.test_tag, and this one has none")
        }
        return try await video.load(tagURL: tag, reward: options.reward)
    }
}
