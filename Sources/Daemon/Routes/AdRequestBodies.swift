import Mediation
import SharedTypes

/// `POST /v1/ads` body.
struct AdLoadBody: Decodable {
    var request: AdLoadRequest

    enum CodingKeys: String, CodingKey, CaseIterable {
        case adUnit = "ad_unit"
        case format
        case formatIDs = "format_ids"
        case options, ssv, force
    }

    enum OptionKeys: String, CodingKey, CaseIterable {
        case mediaAspectRatio = "media_aspect_ratio"
        case multipleImages = "multiple_images"
        case disableImageLoading = "disable_image_loading"
        case customClickHandling = "custom_click_handling"
        case openableSchemes = "openable_schemes"
    }

    enum SSVKeys: String, CodingKey, CaseIterable {
        case customData = "custom_data"
        case userID = "user_id"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let adUnit = try container.decode(String.self, forKey: .adUnit)
        let format = try container.decode(AdFormat.self, forKey: .format)
        var request = AdLoadRequest(adUnit: adUnit, format: format)
        request.formatIDs = try container.decodeIfPresent([String].self, forKey: .formatIDs) ?? []
        if !request.formatIDs.isEmpty, format != .native {
            throw StrictJSON.Failure(path: "format_ids", reason: "only applies to native loads")
        }
        request.force = try container.decodeIfPresent(Bool.self, forKey: .force) ?? false
        if container.contains(.options) {
            let options = try container.superDecoder(forKey: .options)
            try options.rejectUnknownKeys(OptionKeys.self)
            let values = try options.container(keyedBy: OptionKeys.self)
            var preferences = NativeAdPreferences()
            if let ratio = try values.decodeIfPresent(String.self, forKey: .mediaAspectRatio) {
                guard let parsed = NativeAdPreferences.AspectRatio(rawValue: ratio) else {
                    throw StrictJSON.Failure(
                        path: "options.media_aspect_ratio",
                        reason: "must be any, landscape or portrait, not \"\(ratio)\"")
                }
                preferences.mediaAspectRatio = parsed
            }
            preferences.multipleImages = try values.decodeIfPresent(Bool.self, forKey: .multipleImages) ?? false
            preferences.disableImageLoading =
                try values.decodeIfPresent(Bool.self, forKey: .disableImageLoading) ?? false
            preferences.customClickHandling =
                try values.decodeIfPresent(Bool.self, forKey: .customClickHandling) ?? false
            preferences.openableSchemes = try values.decodeIfPresent([String].self, forKey: .openableSchemes) ?? []
            request.preferences = preferences
        }
        if container.contains(.ssv) {
            let ssv = try container.superDecoder(forKey: .ssv)
            try ssv.rejectUnknownKeys(SSVKeys.self)
            let values = try ssv.container(keyedBy: SSVKeys.self)
            request.ssv = ServerSideVerification(
                customData: try values.decodeIfPresent(String.self, forKey: .customData),
                userID: try values.decodeIfPresent(String.self, forKey: .userID))
        }
        self.request = request
    }
}

@WireKeys
struct ClickBody: Decodable {
    var asset: String?

    init() {}

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        asset = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .asset)
    }
}

@WireKeys
struct ProgressBody: Decodable {
    var event: VideoProgress

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let name = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .event)
        guard let event = VideoProgress(rawValue: name) else {
            throw StrictJSON.Failure(
                path: "event",
                reason:
                    "must be one of \(VideoProgress.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(name)\"")
        }
        self.event = event
    }
}

/// `POST /v1/ads/{id}/error`: `{"code": 405}`, a VAST error code from 100 to 999.
@WireKeys
struct PlaybackErrorBody: Decodable {
    var code: Int

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let code = try container.wholeNumber(.code) else {
            throw StrictJSON.Failure(path: "code", reason: "is required")
        }
        self.code = code
        guard (100...999).contains(code) else {
            throw StrictJSON.Failure(path: "code", reason: "must be a VAST error code, 100 to 999, not \(code)")
        }
    }
}
