/// The parsed model of ONE VAST document: its ads in document order and its root Error URLs.
/// It says what the document holds; `VASTResolver` decides what is playable and follows wrappers.
public struct VASTDocument: Sendable, Equatable {
    /// `VAST@version`, e.g. "4.2".
    public var version: String
    /// Root-level `Error` URLs: a no-ad response's way to be told "no fill" (303).
    public var errorURLs: [String]
    public var ads: [Ad]

    public init(version: String, errorURLs: [String] = [], ads: [Ad] = []) {
        self.version = version
        self.errorURLs = errorURLs
        self.ads = ads
    }

    /// One `Ad`: an InLine, a Wrapper, or something else that cannot be used.
    public struct Ad: Sendable, Equatable {
        /// `Ad@id`.
        public var id: String?
        /// `Ad@sequence`: set on the ads of a pod.
        public var sequence: Int?
        /// `Ad@adType` (VAST 4.1): "video", "audio" or "hybrid"; nil means video.
        public var adType: String?
        public var content: Content

        public init(id: String? = nil, sequence: Int? = nil, adType: String? = nil, content: Content) {
            self.id = id
            self.sequence = sequence
            self.adType = adType
            self.content = content
        }
    }

    /// What an `Ad` holds.
    public enum Content: Sendable, Equatable {
        case inLine(InLine)
        case wrapper(Wrapper)
        /// Neither `InLine` nor `Wrapper`: the names of the child elements found instead.
        case unrecognized([String])
    }

    /// An `InLine` ad: the creatives themselves.
    public struct InLine: Sendable, Equatable {
        public var adSystem: String?
        public var adTitle: String?
        public var advertiser: String?
        public var pricing: VASTPricing?
        public var errorURLs: [String]
        public var impressions: [String]
        /// Nil when there is no `Creatives` element.
        public var creatives: [Creative]?

        public init(
            adSystem: String? = nil, adTitle: String? = nil, advertiser: String? = nil, pricing: VASTPricing? = nil,
            errorURLs: [String] = [], impressions: [String] = [], creatives: [Creative]? = nil
        ) {
            self.adSystem = adSystem
            self.adTitle = adTitle
            self.advertiser = advertiser
            self.pricing = pricing
            self.errorURLs = errorURLs
            self.impressions = impressions
            self.creatives = creatives
        }
    }

    /// A `Wrapper` ad: a pointer to another VAST document plus trackers to merge into the ad it leads to.
    public struct Wrapper: Sendable, Equatable {
        public var adSystem: String?
        public var pricing: VASTPricing?
        public var errorURLs: [String]
        public var impressions: [String]
        public var creatives: [Creative]
        /// `VASTAdTagURI`, trimmed; nil when missing or empty.
        public var adTagURI: String?
        /// `Wrapper@followAdditionalWrappers`: false ("false"/"0") forbids the target from being a wrapper too.
        public var followAdditionalWrappers: Bool
        /// `Wrapper@allowMultipleAds`.
        public var allowMultipleAds: Bool

        public init(
            adSystem: String? = nil, pricing: VASTPricing? = nil, errorURLs: [String] = [], impressions: [String] = [],
            creatives: [Creative] = [], adTagURI: String? = nil, followAdditionalWrappers: Bool = true,
            allowMultipleAds: Bool = false
        ) {
            self.adSystem = adSystem
            self.pricing = pricing
            self.errorURLs = errorURLs
            self.impressions = impressions
            self.creatives = creatives
            self.adTagURI = adTagURI
            self.followAdditionalWrappers = followAdditionalWrappers
            self.allowMultipleAds = allowMultipleAds
        }
    }

    /// One `Creative`: its Linear part if any; companions and non-linear parts are only noted.
    public struct Creative: Sendable, Equatable {
        public var id: String?
        /// `Creative@adId` (also spelled `AdID`).
        public var adID: String?
        public var sequence: Int?
        public var linear: Linear?
        public var hasNonLinearAds: Bool
        public var hasCompanionAds: Bool

        public init(
            id: String? = nil, adID: String? = nil, sequence: Int? = nil, linear: Linear? = nil,
            hasNonLinearAds: Bool = false, hasCompanionAds: Bool = false
        ) {
            self.id = id
            self.adID = adID
            self.sequence = sequence
            self.linear = linear
            self.hasNonLinearAds = hasNonLinearAds
            self.hasCompanionAds = hasCompanionAds
        }
    }

    /// A `Linear` creative: the video, its duration, trackers, clicks and icons. In a wrapper only trackers.
    public struct Linear: Sendable, Equatable {
        /// `Duration`; nil when missing or not a time.
        public var durationMilliseconds: Int?
        /// `Linear@skipoffset`.
        public var skipOffset: Offset?
        public var trackingEvents: [TrackingEvent]
        public var clickThrough: String?
        public var clickTracking: [String]
        /// Every `MediaFile`, playable or not; `Mezzanine` and `InteractiveCreativeFile` are left out.
        public var mediaFiles: [VASTMediaFile]
        public var icons: [VASTIcon]

        public init(
            durationMilliseconds: Int? = nil, skipOffset: Offset? = nil, trackingEvents: [TrackingEvent] = [],
            clickThrough: String? = nil, clickTracking: [String] = [], mediaFiles: [VASTMediaFile] = [],
            icons: [VASTIcon] = []
        ) {
            self.durationMilliseconds = durationMilliseconds
            self.skipOffset = skipOffset
            self.trackingEvents = trackingEvents
            self.clickThrough = clickThrough
            self.clickTracking = clickTracking
            self.mediaFiles = mediaFiles
            self.icons = icons
        }
    }

    /// One `Tracking` element of a Linear's `TrackingEvents`.
    public struct TrackingEvent: Sendable, Equatable {
        /// `Tracking@event`, as written (e.g. "firstQuartile").
        public var event: String
        /// `Tracking@offset`, meaningful for "progress"; nil when missing or not a time or percentage.
        public var offset: Offset?
        public var url: String

        public init(event: String, offset: Offset? = nil, url: String) {
            self.event = event
            self.offset = offset
            self.url = url
        }
    }

    /// A point in the video: a time, or a percentage of the duration.
    public enum Offset: Sendable, Equatable {
        case milliseconds(Int)
        case percent(Double)

        /// The offset in milliseconds of a video that lasts `durationMilliseconds`.
        public func milliseconds(ofDuration durationMilliseconds: Int) -> Int {
            switch self {
            case .milliseconds(let milliseconds):
                return milliseconds
            case .percent(let percent):
                return Int((Double(durationMilliseconds) * percent / 100).rounded())
            }
        }
    }
}
