/// A playable linear ad after wrappers are followed: what the player needs and every URL to ping.
/// URL lists hold each URL once, in the order met (outermost wrapper first, the InLine last), not macro-expanded.
public struct VASTCreative: Sendable, Equatable {
    /// The InLine `Ad@id`.
    public var adID: String?
    public var adSystem: String?
    public var adTitle: String?
    public var advertiser: String?
    /// The media file chosen for our player (see `VASTMediaSelection`).
    public var mediaFile: VASTMediaFile
    /// `Linear/Duration`.
    public var durationMilliseconds: Int
    /// `Linear@skipoffset`, a percentage already turned into milliseconds of the duration; nil when not skippable.
    public var skipOffsetMilliseconds: Int?
    /// Impression URLs of the InLine and of every wrapper on the chain.
    public var impressions: [String] = []
    /// Linear tracking URLs by `Tracking@event` ("start", "firstQuartile", "complete", "skip", "close", …),
    /// of the InLine's chosen Linear and of every wrapper's Linear creatives; progress events with an offset are in
    /// `progressTracking` instead.
    public var tracking: [String: [String]] = [:]
    /// `event="progress"` trackers with their offsets, sorted by offset.
    public var progressTracking: [VASTProgressTracker] = []
    /// The InLine's `VideoClicks/ClickThrough`, or the innermost wrapper's when the InLine has none.
    public var clickThrough: String?
    /// `VideoClicks/ClickTracking` of the InLine and of every wrapper.
    public var clickTracking: [String] = []
    /// Icons such as AdChoices: the InLine's, then wrappers' whose `program` the InLine does not have.
    public var icons: [VASTIcon] = []
    /// Every Error URL of the InLine ad and of every wrapper on the chain, for a later playback error.
    public var errorURLs: [String] = []
    /// The InLine's `Pricing`, or the innermost wrapper's.
    public var pricing: VASTPricing?
    /// How many wrappers were followed: 0 when the tag was an InLine.
    public var wrapperDepth: Int = 0
}

/// One `MediaFile`: where the video is and what it is, to decide whether our player can play it.
public struct VASTMediaFile: Sendable, Equatable {
    public var url: String
    /// `MediaFile@type`, e.g. "video/mp4".
    public var mimeType: String
    public var width: Int?
    public var height: Int?
    /// Kilobits per second: `bitrate`, or `maxBitrate` when there is no `bitrate`.
    public var bitrate: Int?
    /// "progressive" or "streaming".
    public var delivery: String?
    public var codec: String?
    /// e.g. "VPAID", which a native player never plays.
    public var apiFramework: String?
}

/// An `Icon` over the video (e.g. AdChoices): the image to draw and the URLs for its view and its clicks.
public struct VASTIcon: Sendable, Equatable {
    /// `Icon@program`, e.g. "AdChoices".
    public var program: String?
    /// The icon's own `StaticResource` (not a click fallback image).
    public var imageURL: String?
    public var width: Int?
    public var height: Int?
    /// `Icon@xPosition`: "left", "right" or pixels.
    public var xPosition: String?
    /// `Icon@yPosition`: "top", "bottom" or pixels.
    public var yPosition: String?
    public var clickThrough: String?
    public var clickTracking: [String] = []
    public var viewTracking: [String] = []
}

/// A `Tracking event="progress"` URL to ping once playback reaches its offset.
public struct VASTProgressTracker: Sendable, Equatable {
    /// From the start of the video; an offset given as a percentage is in milliseconds of the duration.
    public var offsetMilliseconds: Int
    public var url: String
}

/// `Pricing`: what the ad is worth, as the ad server declared it.
public struct VASTPricing: Sendable, Equatable {
    public var value: Double
    /// ISO 4217, e.g. "USD".
    public var currency: String
    /// e.g. "cpm", as written.
    public var model: String?
}
