/// The parsed model of ONE VAST document: its ads in document order and its root Error URLs.
/// It says what the document holds; `VASTResolver` decides what is playable and follows wrappers.
public struct VASTDocument: Sendable, Equatable {
    /// `VAST@version`, e.g. "4.2".
    public var version: String
    /// Root-level `Error` URLs: a no-ad response's way to be told "no fill" (303).
    public var errorURLs: [String] = []
    public var ads: [Ad] = []

    /// One `Ad`: an InLine, a Wrapper, or something else that cannot be used.
    public struct Ad: Sendable, Equatable {
        /// `Ad@id`.
        public var id: String?
        /// `Ad@sequence`: set on the ads of a pod.
        public var sequence: Int?
        /// `Ad@adType` (VAST 4.1): "video", "audio" or "hybrid"; nil means video.
        public var adType: String?
        public var content: Content
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
        public var errorURLs: [String] = []
        public var impressions: [String] = []
        /// Nil when there is no `Creatives` element.
        public var creatives: [Creative]?
    }

    /// A `Wrapper` ad: a pointer to another VAST document plus trackers to merge into the ad it leads to.
    public struct Wrapper: Sendable, Equatable {
        public var adSystem: String?
        public var pricing: VASTPricing?
        public var errorURLs: [String] = []
        public var impressions: [String] = []
        public var creatives: [Creative] = []
        /// `VASTAdTagURI`, trimmed; nil when missing or empty.
        public var adTagURI: String?
        /// `Wrapper@followAdditionalWrappers`: false ("false"/"0") forbids the target from being a wrapper too.
        public var followAdditionalWrappers: Bool = true
        /// `Wrapper@allowMultipleAds`.
        public var allowMultipleAds: Bool = false
    }

    /// One `Creative`: its Linear part if any; companions and non-linear parts are only noted.
    public struct Creative: Sendable, Equatable {
        public var id: String?
        /// `Creative@adId` (also spelled `AdID`).
        public var adID: String?
        public var sequence: Int?
        public var linear: Linear?
        public var hasNonLinearAds: Bool = false
        public var hasCompanionAds: Bool = false
    }

    /// A `Linear` creative: the video, its duration, trackers, clicks and icons. In a wrapper only trackers.
    public struct Linear: Sendable, Equatable {
        /// `Duration`; nil when missing or not a time.
        public var durationMilliseconds: Int?
        /// `Linear@skipoffset`.
        public var skipOffset: Offset?
        public var trackingEvents: [TrackingEvent] = []
        public var clickThrough: String?
        public var clickTracking: [String] = []
        /// Every `MediaFile`, playable or not; `Mezzanine` and `InteractiveCreativeFile` are left out.
        public var mediaFiles: [VASTMediaFile] = []
        public var icons: [VASTIcon] = []
    }

    /// One `Tracking` element of a Linear's `TrackingEvents`.
    public struct TrackingEvent: Sendable, Equatable {
        /// `Tracking@event`, as written (e.g. "firstQuartile").
        public var event: String
        /// `Tracking@offset`, meaningful for "progress"; nil when missing or not a time or percentage.
        public var offset: Offset?
        public var url: String
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
