import Consent
import FoundationEssentials
import Logging
import SharedTypes
import Timing

/// An ad network's adapter (the seeds' custom event): set up once, then asked for native or
/// rewarded ads by the waterfall. Its loads complete exactly once, whatever its SDK does:
/// wrap callback-style SDKs with `OnceCompletion`.
public protocol AdNetworkAdapter: Sendable {
    /// What its `setup` holds: a `@Settings` struct, decoded when the configuration is read
    /// (errors name their key paths). `NoOptions` (the default) for a network that takes none.
    associatedtype Setup: Decodable & Sendable & Equatable = NoOptions
    /// What a line item's `options` hold, decoded with the configuration; the line item carries
    /// them to every load (`lineItemOptions(of:)`). `NoOptions` by default.
    associatedtype LineItemOptions: Decodable & Sendable & Equatable = NoOptions
    /// The network's name, as line items name it.
    static var name: String { get }
    static var adapterVersion: SemanticVersion { get }
    var sdkVersion: SemanticVersion { get }
    /// Whether the network counts impressions and clicks itself: the daemon then fires no
    /// trackers of its own for its ads.
    var tracksImpressionsAndClicks: Bool { get }
    /// Sets the network up; a throw is its init error.
    init(setup: Setup, context: AdNetworkContext) async throws
    /// What is wrong with a line item for this network in a unit of `format` whose prices are in
    /// `currency`, beyond what its options say alone: checked when the configuration is read
    /// (`--check-config`, start, reload); nil when nothing is.
    static func problem(
        with item: LineItem, options: LineItemOptions, setup: Setup, format: AdFormat, currency: String,
        signalAdapters: Set<String>
    ) -> String?
    func loadNativeAd(_ request: NetworkAdRequest) async throws(AdLoadError) -> NetworkAd
    func loadRewardedAd(_ request: NetworkAdRequest) async throws(AdLoadError) -> NetworkAd
}

extension AdNetworkAdapter {
    public var tracksImpressionsAndClicks: Bool { false }

    public static func problem(
        with item: LineItem, options: LineItemOptions, setup: Setup, format: AdFormat, currency: String,
        signalAdapters: Set<String>
    ) -> String? { nil }

    public func loadNativeAd(_ request: NetworkAdRequest) async throws(AdLoadError) -> NetworkAd {
        throw AdLoadError(.invalidRequest, "\(Self.name) serves no native ads")
    }

    public func loadRewardedAd(_ request: NetworkAdRequest) async throws(AdLoadError) -> NetworkAd {
        throw AdLoadError(.invalidRequest, "\(Self.name) serves no rewarded ads")
    }
}

/// What a network is set up with, besides its setup.
@MemberwiseInit
public struct AdNetworkContext: Sendable {
    public var logger: Logger
    public var services: AdNetworkServices
}

/// One line item's request to its network.
@MemberwiseInit
public struct NetworkAdRequest: Sendable {
    public var adUnit: String
    /// The line item's `parameter`: usually the network's own ad unit id.
    public var parameter: String
    /// The line item's own options, as its network decoded them (`lineItemOptions(of:)`);
    /// nil: the network's defaults.
    public var options: DecodedOptions?
    /// The custom native format ids the client renders (native loads).
    public var formatIDs: [String] = []
    public var preferences: NativeAdPreferences = NativeAdPreferences()
    public var privacy: PrivacyState?
    /// The app the ad is for: what a bid request says of the app (`app`, `source.schain`).
    public var app: AppIdentity? = nil
    /// The advertising id to send (`device.ifa`), nil when the app may not have it.
    public var advertisingID: AdvertisingID? = nil
    /// How this request may be served under the privacy state: `limited` sends no identifier
    /// (no `device.ifa`, no identifier signals) and stores nothing on the device.
    public var servingMode: ServingMode = .personalized
    /// When the waterfall stops waiting for this line item, on the store's clock: a network that
    /// talks to servers budgets its requests to end before it, so that what it owes them (error
    /// URLs) still goes.
    public var deadline: Deadline?
    /// A bid request's: what the bidder's `tmax` leaves before the deadline for the answer to
    /// travel (Prebid Server's network latency buffer).
    public var networkBuffer: Duration = .zero
    /// The ad unit's floor (CPM, in its currency), for a network that can tell its bidder.
    public var floorCPM: Double?
    /// The ad unit's currency (ISO 4217): its floor's, and the one its bids must be in.
    public var currency: String
    /// The ad unit's blocks: what to ask the network to leave out, and to drop if it does not.
    public var quality: AdQuality = AdQuality()
    /// A test load's request: a network tells its server so (OpenRTB `test: 1`) or asks a test
    /// ad (a VAST line item's `test_tag`), and nothing it serves may be billed.
    public var test: Bool = false
    /// Where the load's trace notes the notices this request's bids are owed (the ledger's
    /// `open` and `lost` take it); nil: none noted.
    public var notices: NoticeLog.Source? = nil

    /// What `budget` keeps before the deadline by default: time to read the answer.
    public static let budgetMargin = Duration.milliseconds(20)

    /// `wanted`, cut to what is left before the deadline less `margin` (never under 1 ms).
    public func budget(_ wanted: Duration, margin: Duration = budgetMargin) -> Duration {
        guard let deadline else { return wanted }
        return max(.milliseconds(1), min(wanted, deadline.remaining - margin))
    }
}

/// What a client asks of a native ad.
@MemberwiseInit
public struct NativeAdPreferences: Sendable, Equatable {
    public typealias AspectRatio = MediaAspectRatio

    public var mediaAspectRatio: AspectRatio = .any
    public var multipleImages: Bool = false
    public var disableImageLoading: Bool = false
    /// The client handles clicks itself.
    public var customClickHandling: Bool = false
    /// URL schemes the client can open, for deep links ("myapp", "market").
    public var openableSchemes: [String] = []
}

/// A network's answer to a load.
public struct NetworkAd: Sendable {
    public enum Content: Sendable, Equatable {
        case native(NativeAd)
        case customNative(CustomNativeAd)
        case rewarded(Reward)
    }

    public var content: Content
    /// Where a click leads: the deep links, in the network's order of preference, then the
    /// destination URL.
    public var clickDestination: String
    public var deepLinks: [String]
    /// URLs the daemon fetches once each on the impression and on the click.
    public var impressionTrackers: [String]
    public var clickTrackers: [String]
    /// Revenue of the impression, when the network tells it.
    public var value: AdValue?
    /// How long the network lets its ad be shown (OpenRTB's `bid.exp`): it shortens the ad
    /// unit's `expiry_ms`, never lengthens it.
    public var expiry: Duration?
    /// Events the network reports on its own while a rewarded ad plays, for the daemon to
    /// put in order (the reward always before the dismiss).
    public var presentation: (any RewardedPresentationSource)?
    /// The video of a rewarded video ad.
    public var video: VideoCreative?
    /// URLs the daemon fetches once each when the client first reports that progress.
    public var progressTrackers: [VideoProgress: [String]]
    /// URLs the daemon fetches once when the ad is dismissed (VAST `close`).
    public var dismissTrackers: [String]
    /// URLs the daemon fetches once if the client cannot play the ad (VAST `Error`).
    public var errorTrackers: [String]
    /// The bid the ad serves, in the ledger (`services.bids`): won when the store keeps the ad,
    /// lost when it is not used after all (it came too late, in another format than the load's,
    /// or a privacy change during the load). Nil when the ad owes no bidder anything.
    public var bid: OwedBid?
    /// Fills a tracker URL's macros as it is fired (VAST's `[TIMESTAMP]`, `[CACHEBUSTING]`,
    /// and `[ERRORCODE]` with the error code of an error tracker).
    public var trackerMacros: @Sendable (String, _ errorCode: Int?) -> String

    public init(
        content: Content, clickDestination: String, deepLinks: [String] = [], impressionTrackers: [String] = [],
        clickTrackers: [String] = [], value: AdValue? = nil, presentation: (any RewardedPresentationSource)? = nil,
        video: VideoCreative? = nil, progressTrackers: [VideoProgress: [String]] = [:], dismissTrackers: [String] = [],
        errorTrackers: [String] = [], trackerMacros: @escaping @Sendable (String, Int?) -> String = { url, _ in url }
    ) {
        self.content = content
        self.clickDestination = clickDestination
        self.deepLinks = deepLinks
        self.impressionTrackers = impressionTrackers
        self.clickTrackers = clickTrackers
        self.value = value
        self.presentation = presentation
        self.video = video
        self.progressTrackers = progressTrackers
        self.dismissTrackers = dismissTrackers
        self.errorTrackers = errorTrackers
        self.trackerMacros = trackerMacros
    }
}

/// What a network reports while its rewarded ad plays, in the order it reports it.
public enum NetworkPresentationEvent: Sendable, Equatable {
    case rewardEarned
    case dismissed
}

/// A network that reports its own events for a rewarded ad as it plays.
public protocol RewardedPresentationSource: Sendable {
    /// What the network reports in answer to the client's `progress` event.
    func events(after progress: VideoProgress) async -> [NetworkPresentationEvent]
}

/// Revenue of one impression.
@WireKeys
@MemberwiseInit
public struct AdValue: Sendable, Codable, Equatable {
    public var valueMicros: Int64
    public var currency: String
    /// `unknown`, `estimated`, `publisher_provided` or `precise`.
    public var precision: String

    /// Whether a CPM price is one a bid could carry: a number from 0 to a million.
    public static func isPlausible(cpm: Double) -> Bool { cpm.isFinite && cpm >= 0 && cpm <= 1_000_000 }

    /// One impression of a CPM price (a thousandth of it); nil for a price that is not
    /// plausible.
    public init?(cpm: Double, currency: String, precision: String) {
        guard Self.isPlausible(cpm: cpm) else { return nil }
        self.init(valueMicros: Int64((cpm * 1000).rounded()), currency: currency, precision: precision)
    }
}
