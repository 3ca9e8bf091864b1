import Consent
import SharedTypes

/// An ad unit: its format, the waterfall of line items that fill it, and the bidders whose
/// best bid is slotted into the waterfall by price.
@MemberwiseInit
public struct AdUnit: Sendable, Equatable {
    public var id: String
    public var format: AdFormat
    public var waterfall: [LineItem]
    /// Background retries of a failed load, with backoff 2^min(6, attempt) s.
    public var maxRetries: Int = 0
    /// Load the next ad as soon as one is used (dismissed), so that one is always ready.
    public var preload: Bool = false
    /// How long a loaded ad may be shown.
    public var expiry: Duration = .seconds(3600)
    /// Where a reward's signed server-side-verification callback goes (rewarded units).
    public var ssvCallbackURL: String?
    /// Asked all at once when a load starts; their networks bid (`BiddingAdNetwork`).
    public var bidders: [LineItem] = []
    /// The least CPM a bid must reach to be slotted; nil: any price.
    public var floorCPM: Double?
    /// The currency of its prices (`floorCPM`, line items' `cpm`): a bid in another is not
    /// compared, it is refused.
    public var currency: String = "USD"
    /// The bidders' time.
    public var auction: AuctionTiming = AuctionTiming()
    /// What its ads may not be, asked and enforced.
    public var quality: AdQuality = AdQuality()
    /// How often one app may be shown its ads.
    public var capping: FrequencyCapping = FrequencyCapping()
}

/// One step of a waterfall: a network, what to ask it for, and how long to wait.
@MemberwiseInit
public struct LineItem: Sendable, Equatable {
    public var network: String
    public var parameter: String
    public var timeout: Duration = .seconds(2)
    /// Its `options`, decoded by its network when the configuration was read; nil: the
    /// network's defaults.
    public var options: DecodedOptions?
    /// What it needs from the user's consent (`consent`); a line item the privacy state denies
    /// is skipped. Its vendor id also picks the serving mode of its requests.
    public var consent: ConsentRequirement = .none
    /// What the line item is worth (CPM): where a bid is slotted against it. Nil: unpriced, tried
    /// after every bid.
    public var cpm: Double?

    /// The parameter as answers and logs show it: a URL (a VAST ad tag) without its query,
    /// fragment and user info, which may carry keys and ids; anything else as it is.
    public var shownParameter: String {
        parameter.contains("://") ? redactedURL(parameter) : parameter
    }
}
