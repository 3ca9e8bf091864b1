import FoundationEssentials
import Mediation
import SecureSignals
import SharedTypes
import Synchronization

/// The seeds' test ad units, served exactly: `/6499/example/rewarded` fills a rewarded test
/// ad every time; `/21775744923/example/native` fills native app-install and content ads, and
/// the custom native format `10063170` (Headline, MainImage, Caption) to a client that lists
/// it; `/21775744923/example/native-backfill` fills native ads with an AdChoices overlay.
///
/// A line item's `parameter` is the test ad unit; its options make the network misbehave, for
/// tests of everything around it.
public final class TestAdNetwork: AdNetworkAdapter {
    public static let name = "test"
    public static let adapterVersion = SemanticVersion(1, 0, 0)
    public let sdkVersion = SemanticVersion(1, 0, 0)
    public let tracksImpressionsAndClicks: Bool

    /// Its `setup`.
    @Settings
    public struct Setup: Decodable, Sendable, Equatable {
        /// It tracks impressions and clicks itself.
        var tracksItself = false
        /// Its setup is this slow.
        @WireName("setup_delay_ms") var setupDelayMilliseconds: Int?
    }

    /// A line item's `options`.
    @Settings
    public struct LineItemOptions: Decodable, Sendable, Equatable {
        var behavior: Behavior?
        /// Before it answers.
        @WireName("delay_ms") var delayMilliseconds: Int?
        var impressionTracker: String?
        var clickTracker: String?
        var deepLink: String?
    }

    /// How a line item makes it misbehave.
    public enum Behavior: String, Decodable, Sendable, CaseIterable {
        case noFill = "no_fill"
        case error, hang
        /// Fails at once with a timeout of its own, as a network whose ad server did not answer in time.
        case timeout
        /// Answers twice: one completion counts.
        case completeTwice = "complete_twice"
        /// Reports a rewarded ad's dismiss before its reward.
        case dismissFirst = "dismiss_first"
        /// Grants the reward at the midpoint, as a playable may.
        case rewardAtMidpoint = "reward_at_midpoint"

        public init(from decoder: any Decoder) throws { self = try StrictJSON.oneOf(decoder) }
    }

    public static let rewardedUnit = "/6499/example/rewarded"
    public static let nativeUnit = "/21775744923/example/native"
    public static let backfillUnit = "/21775744923/example/native-backfill"
    public static let customFormatID = "10063170"

    /// Alternates app-install and content ads.
    private let served = Atomic<Int>(0)
    /// Completions a `complete_twice` load made that did not count.
    public static let ignoredCompletions = Atomic<Int>(0)

    public init(setup: Setup, context: AdNetworkContext) async throws {
        tracksImpressionsAndClicks = setup.tracksItself
        if let delay = setup.setupDelayMilliseconds { try await Task.sleep(for: .milliseconds(delay)) }
    }

    public func loadRewardedAd(_ request: NetworkAdRequest) async throws(AdLoadError) -> NetworkAd {
        let options = try lineItemOptions(of: request)
        try await misbehave(options)
        guard request.parameter == Self.rewardedUnit else {
            throw AdLoadError(.noFill, "no rewarded test ad for '\(request.parameter)'")
        }
        let presentation: (any RewardedPresentationSource)? =
            switch options.behavior {
            case .dismissFirst: DismissFirstPresentation()
            case .rewardAtMidpoint: MidpointRewardPresentation()
            default: nil
            }
        return try await complete(
            options,
            NetworkAd(
                content: .rewarded(Reward(type: "coins", amount: 10)),
                clickDestination: "https://developers.google.com/ad-manager/mobile-ads-sdk",
                deepLinks: deepLinks(options), impressionTrackers: options.impressionTracker.map { [$0] } ?? [],
                clickTrackers: options.clickTracker.map { [$0] } ?? [],
                value: AdValue(valueMicros: 12_500, currency: "USD", precision: "precise"),
                presentation: presentation))
    }

    public func loadNativeAd(_ request: NetworkAdRequest) async throws(AdLoadError) -> NetworkAd {
        let options = try lineItemOptions(of: request)
        try await misbehave(options)
        let content: NetworkAd.Content
        switch request.parameter {
        case Self.nativeUnit where request.formatIDs.contains(Self.customFormatID):
            content = .customNative(customNative(request.preferences))
        case Self.nativeUnit:
            content = .native(
                served.add(1, ordering: .relaxed).newValue % 2 == 1
                    ? appInstall(request.preferences) : contentAd(request.preferences))
        case Self.backfillUnit:
            var ad = contentAd(request.preferences)
            ad.adChoices = AdChoices(
                icon: image(TestCreatives.adChoices, request.preferences),
                url: "https://adssettings.google.com/whythisad",
                text: "AdChoices")
            content = .native(ad)
        default:
            throw AdLoadError(.noFill, "no native test ad for '\(request.parameter)'")
        }
        return try await complete(
            options,
            NetworkAd(
                content: content, clickDestination: "https://developers.google.com/ad-manager/mobile-ads-sdk",
                deepLinks: deepLinks(options), impressionTrackers: options.impressionTracker.map { [$0] } ?? [],
                clickTrackers: options.clickTracker.map { [$0] } ?? [],
                value: AdValue(valueMicros: 1_000, currency: "USD", precision: "estimated")))
    }

    private func misbehave(_ options: LineItemOptions) async throws(AdLoadError) {
        if let delay = options.delayMilliseconds { try? await Task.sleep(for: .milliseconds(delay)) }
        switch options.behavior {
        case .noFill: throw AdLoadError(.noFill, "the test network was told not to fill")
        case .error: throw AdLoadError(.networkError, "the test network was told to fail")
        case .timeout: throw AdLoadError(.timeout, "the test network's ad server did not answer in time")
        case .hang:
            try? await Task.sleep(for: .seconds(3600))
            throw AdLoadError(.timeout, "hung")
        default: break
        }
    }

    /// Answers through a once-only completion, twice when told to: the second must not count.
    private func complete(_ options: LineItemOptions, _ ad: NetworkAd) async throws(AdLoadError) -> NetworkAd {
        let twice = options.behavior == .completeTwice
        return try await OnceCompletion<NetworkAd, AdLoadError>.run { completion in
            completion.complete(.success(ad))
            if twice, !completion.complete(.failure(AdLoadError(.networkError, "a second, late completion"))) {
                Self.ignoredCompletions.add(1, ordering: .relaxed)
            }
        }
    }

    private func deepLinks(_ options: LineItemOptions) -> [String] {
        options.deepLink.map { [$0] } ?? ["market://details?id=com.google.android.gms"]
    }

    private func image(_ creative: TestCreatives.Image, _ preferences: NativeAdPreferences) -> NativeImage {
        NativeImage(
            url: creative.url, scale: 1, width: creative.width, height: creative.height,
            data: preferences.disableImageLoading ? nil : creative.base64)
    }

    /// The main image in the shape the client prefers (landscape unless it asks for portrait),
    /// then the other one when it takes several.
    private func images(_ preferences: NativeAdPreferences) -> [NativeImage] {
        let main = preferences.mediaAspectRatio == .portrait ? TestCreatives.portrait : TestCreatives.landscape
        let other = main.name == "portrait" ? TestCreatives.landscape : TestCreatives.portrait
        let all = [image(main, preferences), image(other, preferences)]
        return preferences.multipleImages ? all : [all[0]]
    }

    private func appInstall(_ preferences: NativeAdPreferences) -> NativeAd {
        let images = images(preferences)
        return NativeAd(
            headline: "Test Ad: Google Mobile Ads Sample App", body: "This is a test app-install ad.",
            callToAction: "Install", store: "Google Play", price: "Free", starRating: 4.5,
            icon: image(TestCreatives.icon, preferences), images: images,
            mediaAspectRatio: images.first.flatMap { Double($0.width ?? 0) / Double(max(1, $0.height ?? 1)) },
            extraAssets: ["kind": "app_install"])
    }

    private func contentAd(_ preferences: NativeAdPreferences) -> NativeAd {
        let images = images(preferences)
        return NativeAd(
            headline: "Test Ad: Content", body: "This is a test content ad.", callToAction: "Learn more",
            advertiser: "Google", icon: image(TestCreatives.icon, preferences), images: images,
            mediaAspectRatio: images.first.flatMap { Double($0.width ?? 0) / Double(max(1, $0.height ?? 1)) },
            extraAssets: ["kind": "content"])
    }

    /// The format's three assets; no video content, so its media is the main image.
    private func customNative(_ preferences: NativeAdPreferences) -> CustomNativeAd {
        let main = image(TestCreatives.landscape, preferences)
        return CustomNativeAd(
            formatID: Self.customFormatID,
            assets: [
                "Headline": .text("Test Ad: Custom Native Format"),
                "MainImage": .image(main),
                "Caption": .text("This is a test custom native ad."),
            ],
            media: CustomNativeMedia(hasVideoContent: false, image: main))
    }
}

/// A network that grants the reward at the midpoint, before the video completes.
struct MidpointRewardPresentation: RewardedPresentationSource {
    func events(after progress: VideoProgress) async -> [NetworkPresentationEvent] {
        progress == .midpoint ? [.rewardEarned] : []
    }
}

/// A network that reports the dismiss before the reward when the video completes.
struct DismissFirstPresentation: RewardedPresentationSource {
    func events(after progress: VideoProgress) async -> [NetworkPresentationEvent] {
        progress == .complete ? [.dismissed, .rewardEarned] : []
    }
}
