/// The video a rewarded ad plays, as the client's player needs it: the media file chosen
/// for this device, its length, when it may be skipped, and where a click leads.
@WireKeys
@MemberwiseInit
public struct VideoCreative: Sendable, Codable, Equatable {
    public var mediaURL: String
    public var mimeType: String
    public var width: Int?
    public var height: Int?
    /// Kilobits per second, when the ad server says.
    public var bitrate: Int?
    @WireName("duration_ms") public var durationMilliseconds: Int
    /// When the viewer may skip; nil when the video is not skippable.
    @WireName("skip_offset_ms") public var skipOffsetMilliseconds: Int?
    public var clickThrough: String?
    public var adChoices: AdChoices?
}
