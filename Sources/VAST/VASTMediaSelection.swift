import FoundationEssentials
import SharedTypes

/// What our player can play and what suits the screen: the caller's side of choosing a media file.
public struct VASTMediaPreferences: Sendable, Equatable {
    /// The types our player plays: MP4, WebM and HLS.
    public static let defaultMIMETypes = [
        "video/mp4", "video/webm", "application/x-mpegURL", "application/vnd.apple.mpegurl",
    ]

    /// MIME types the player can play, compared without case and without parameters.
    public var mimeTypes: [String]
    /// The screen's width in pixels.
    public var width: Int
    /// The screen's height in pixels.
    public var height: Int
    /// The highest bitrate in kbps worth downloading; nil for no limit.
    public var maximumBitrate: Int?

    public init(
        mimeTypes: [String] = VASTMediaPreferences.defaultMIMETypes, width: Int = 1920, height: Int = 1080,
        maximumBitrate: Int? = nil
    ) {
        self.mimeTypes = mimeTypes
        self.width = width
        self.height = height
        self.maximumBitrate = maximumBitrate
    }
}

/// Chooses the media file a native player plays: never VPAID, Flash or JavaScript.
///
/// Playable: a non-empty URL, no VPAID `apiFramework`, not JavaScript or Flash, a MIME type in the preferences.
/// Among those: first the files within `maximumBitrate` (when set; unknown bitrates count as within), then the
/// smallest difference between the file's area and the screen's (unknown sizes last), then the higher bitrate,
/// then document order.
public enum VASTMediaSelection {
    private static let neverPlayedTypes: Set<String> = ["application/javascript", "application/x-shockwave-flash"]

    /// The best playable file of `files`, or nil when none can be played.
    public static func choose(_ files: [VASTMediaFile], preferences: VASTMediaPreferences) -> VASTMediaFile? {
        let screenArea = preferences.width * preferences.height
        let ranked = files.enumerated()
            .filter { isPlayable($0.element, preferences: preferences) }
            .map { index, file in
                let withinBitrate =
                    preferences.maximumBitrate.map { maximum in (file.bitrate ?? 0) <= maximum } ?? true
                let areaDifference: Int
                if let width = file.width, let height = file.height, width > 0, height > 0 {
                    areaDifference = abs(width * height - screenArea)
                } else {
                    areaDifference = Int.max
                }
                return (file: file, rank: (withinBitrate ? 0 : 1, areaDifference, -(file.bitrate ?? 0), index))
            }
        return ranked.min { $0.rank < $1.rank }?.file
    }

    /// Whether a native player given `preferences` can play `file` at all.
    public static func isPlayable(_ file: VASTMediaFile, preferences: VASTMediaPreferences) -> Bool {
        guard !file.url.isEmpty else { return false }
        if let framework = file.apiFramework, framework.lowercased().contains("vpaid") {
            return false
        }
        let type = mimeType(file.mimeType)
        guard !neverPlayedTypes.contains(type) else { return false }
        return preferences.mimeTypes.contains { mimeType($0) == type }
    }

    /// "Video/MP4; codecs=…" → "video/mp4".
    private static func mimeType(_ text: String) -> String {
        let base = text.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        return base.trimmingWhitespace.lowercased()
    }
}
