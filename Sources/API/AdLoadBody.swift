import SharedTypes

/// `POST /v1/ads`: which unit, which format, and what the app asks of the ad.
@Settings
public struct AdLoadBody: Codable, Sendable, Equatable {
    public var adUnit: String
    public var format: AdFormat
    /// The custom native formats the app renders, for a native load.
    public var formatIDs: [String] = []
    public var options: NativeOptions?
    public var ssv: SSV?
    /// Load even when the unit's caps would refuse (a developer's preview).
    public var force = false
    /// A test load, for an app with `test`: marked so to the networks, never billed or capped.
    public var test = false
    /// With `test`: the one source to try alone, `NETWORK:PARAMETER`.
    public var lineItem: String?

    public init(adUnit: String, format: AdFormat) {
        self.adUnit = adUnit
        self.format = format
    }

    public func validate(at codingPath: [any CodingKey]) throws {
        if !formatIDs.isEmpty, format != .native {
            throw StrictJSON.Failure(at: codingPath, CodingKeys.formatIDs, "only applies to native loads")
        }
        if lineItem != nil, !test {
            throw StrictJSON.Failure(
                at: codingPath, CodingKeys.lineItem, "only applies to a test load (\"test\": true)")
        }
    }

    /// What the app asks of a native ad.
    @Settings
    public struct NativeOptions: Codable, Sendable, Equatable {
        public var mediaAspectRatio: MediaAspectRatio?
        public var multipleImages = false
        public var disableImageLoading = false
        /// The app handles clicks itself.
        public var customClickHandling = false
        /// URL schemes the app can open.
        public var openableSchemes: [String] = []

        public init() {}
    }

    /// A rewarded ad's server-side verification: passed on in its reward's signed callback.
    @Settings
    public struct SSV: Codable, Sendable, Equatable {
        public var customData: String?
        public var userID: String?

        public init(customData: String? = nil, userID: String? = nil) {
            self.customData = customData
            self.userID = userID
        }
    }
}
