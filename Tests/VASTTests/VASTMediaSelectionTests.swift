import Testing

@testable import VAST

@Suite struct VASTMediaSelectionTests {
    static func file(
        _ name: String, type: String = "video/mp4", width: Int? = nil, height: Int? = nil, bitrate: Int? = nil,
        apiFramework: String? = nil
    ) -> VASTMediaFile {
        VASTMediaFile(
            url: "https://cdn.test/\(name)", mimeType: type, width: width, height: height, bitrate: bitrate,
            apiFramework: apiFramework)
    }

    @Test func vpaidFlashJavaScriptEmptyAndUnknownTypesAreNeverPlayed() {
        let preferences = VASTMediaPreferences(
            mimeTypes: VASTMediaPreferences.defaultMIMETypes + ["application/javascript", "video/x-flv"])
        let files = [
            Self.file("vpaid.mp4", apiFramework: "VPAID"),
            Self.file("vpaid.js", type: "application/javascript"),
            Self.file("flash.swf", type: "application/x-shockwave-flash"),
            VASTMediaFile(url: "", mimeType: "video/mp4"),
            Self.file("x.mov", type: "video/quicktime"),
        ]
        #expect(VASTMediaSelection.choose(files, preferences: preferences) == nil)
        #expect(VASTMediaSelection.choose(files, preferences: VASTMediaPreferences()) == nil)
    }

    @Test func hlsAndWebMArePlayableWhateverTheCase() {
        let preferences = VASTMediaPreferences()
        #expect(
            VASTMediaSelection.isPlayable(Self.file("a.m3u8", type: "application/x-mpegurl"), preferences: preferences))
        #expect(
            VASTMediaSelection.isPlayable(Self.file("a.webm", type: "Video/WebM; codecs=vp9"), preferences: preferences)
        )
    }

    @Test func closestAreaWinsThenHigherBitrate() {
        let files = [
            Self.file("small", width: 640, height: 360, bitrate: 600),
            Self.file("hd-low", width: 1280, height: 720, bitrate: 1000),
            Self.file("hd-high", width: 1280, height: 720, bitrate: 2000),
            Self.file("unknown-size", bitrate: 9000),
        ]
        let preferences = VASTMediaPreferences(width: 1280, height: 720)
        #expect(VASTMediaSelection.choose(files, preferences: preferences)?.url == "https://cdn.test/hd-high")
    }

    @Test func filesWithinTheBitrateCapComeFirst() {
        let files = [
            Self.file("fhd", width: 1920, height: 1080, bitrate: 5000),
            Self.file("sd", width: 640, height: 360, bitrate: 800),
        ]
        let capped = VASTMediaPreferences(maximumBitrate: 1000)
        #expect(VASTMediaSelection.choose(files, preferences: capped)?.url == "https://cdn.test/sd")
        #expect(VASTMediaSelection.choose(files, preferences: VASTMediaPreferences())?.url == "https://cdn.test/fhd")
        // When every file is over the cap, the best of them is still played.
        let tooLow = VASTMediaPreferences(maximumBitrate: 100)
        #expect(VASTMediaSelection.choose(files, preferences: tooLow)?.url == "https://cdn.test/fhd")
    }
}
