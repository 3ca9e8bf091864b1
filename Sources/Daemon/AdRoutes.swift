import Foundation
import Hummingbird
import Mediation
import NIOCore

/// The mediation half of the socket API: loads, each ad's lifecycle, and the event stream.
enum AdRoutes {
    static let table: [(pattern: [String], methods: [HTTPRequest.Method])] = [
        (["v1", "ads"], [.post]),
        (["v1", "ads", "*"], [.get]),
        (["v1", "ads", "*", "impression"], [.post]),
        (["v1", "ads", "*", "click"], [.post]),
        (["v1", "ads", "*", "show"], [.post]),
        (["v1", "ads", "*", "progress"], [.post]),
        (["v1", "ads", "*", "dismiss"], [.post]),
        (["v1", "ads", "*", "error"], [.post]),
        (["v1", "events"], [.get]),
    ]

    static func install(on router: Router<DaemonRequestContext>, state: DaemonState) {
        let ads = state.ads

        router.post("/v1/ads") { request, _ in
            let body = try await JSONRequest.decode(AdLoadBody.self, from: request)
            switch await ads.load(body.request) {
            case .success(let ad):
                return try JSONResponse.make(ad)
            case .failure(let failure):
                return try JSONResponse.make(LoadFailureBody(failure), status: status(of: failure.error.code))
            }
        }

        router.get("/v1/ads/:id") { _, context in
            try await lifecycle { try await ads.ad(try context.parameters.require("id")) }
        }

        router.post("/v1/ads/:id/impression") { _, context in
            try await lifecycle { try await ads.impression(try context.parameters.require("id")) }
        }

        router.post("/v1/ads/:id/click") { request, context in
            let body = try await JSONRequest.decode(ClickBody.self, from: request, emptyMeans: ClickBody())
            return try await lifecycle { try await ads.click(try context.parameters.require("id"), asset: body.asset) }
        }

        router.post("/v1/ads/:id/show") { _, context in
            try await lifecycle { try await ads.show(try context.parameters.require("id")) }
        }

        router.post("/v1/ads/:id/progress") { request, context in
            let body = try await JSONRequest.decode(ProgressBody.self, from: request)
            return try await lifecycle { try await ads.progress(try context.parameters.require("id"), body.event) }
        }

        router.post("/v1/ads/:id/dismiss") { _, context in
            try await lifecycle { try await ads.dismiss(try context.parameters.require("id")) }
        }

        router.post("/v1/ads/:id/error") { request, context in
            let body = try await JSONRequest.decode(PlaybackErrorBody.self, from: request)
            return try await lifecycle {
                try await ads.playbackError(try context.parameters.require("id"), code: body.code)
            }
        }

        router.get("/v1/events") { request, _ in
            let filter = EventHub.Filter(
                adUnit: request.uri.queryParameters.get("ad_unit"), adID: request.uri.queryParameters.get("ad_id"))
            return Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                body: ResponseBody(asyncSequence: EventStream.body(ads.events.subscribe(filter))))
        }
    }

    /// Runs a lifecycle call; its refusal becomes the matching error answer.
    private static func lifecycle(_ call: () async throws -> some Encodable) async throws -> Response {
        do {
            return try JSONResponse.make(try await call())
        } catch let error as AdLifecycleError {
            let status: HTTPResponse.Status
            switch error.code {
            case .unknownAd: status = .notFound
            case .adExpired: status = .gone
            case .adAlreadyUsed, .notShown, .wrongFormat: status = .conflict
            }
            throw APIError(status, error.code.rawValue, error.message)
        }
    }

    static func status(of code: AdLoadError.Code) -> HTTPResponse.Status {
        switch code {
        case .invalidRequest: return .badRequest
        case .noFill: return .notFound
        case .timeout: return .gatewayTimeout
        case .networkError: return .badGateway
        case .internalError: return .internalServerError
        }
    }
}

/// Server-Sent Events: a comment line at once (so a client knows it is subscribed), then one
/// `event:`/`data:` pair per event, and a comment every 15 s, which also finds out when the
/// client has gone: the write fails and the subscription ends.
enum EventStream {
    static let heartbeat = Duration.seconds(15)

    static func body(_ events: AsyncStream<AdEvent>) -> AsyncStream<ByteBuffer> {
        let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        continuation.yield(ByteBuffer(string: ": subscribed\n\n"))
        let forward = Task {
            for await event in events {
                continuation.yield(ByteBuffer(string: "event: \(event.name.rawValue)\ndata: \(event.json())\n\n"))
            }
            continuation.finish()
        }
        let keepAlive = Task {
            while (try? await Task.sleep(for: heartbeat)) != nil {
                continuation.yield(ByteBuffer(string: ": keep-alive\n\n"))
            }
        }
        continuation.onTermination = { _ in
            forward.cancel()
            keepAlive.cancel()
        }
        return stream
    }
}

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
        let formatName = try container.decode(String.self, forKey: .format)
        guard let format = AdFormat(rawValue: formatName) else {
            throw StrictJSON.Failure(
                path: "format", reason: "must be \"native\" or \"rewarded\", not \"\(formatName)\"")
        }
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

/// A failed load's answer: the error, and the waterfall's attempts.
struct LoadFailureBody: Encodable {
    struct Detail: Encodable {
        var code: String
        var message: String
    }

    var error: Detail
    var responseInfo: ResponseInfo?

    init(_ failure: AdLoadFailure) {
        error = Detail(code: failure.error.code.rawValue, message: failure.error.message)
        responseInfo = failure.info
    }

    enum CodingKeys: String, CodingKey {
        case error
        case responseInfo = "response_info"
    }
}

struct ClickBody: Decodable {
    var asset: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case asset }

    init() {}

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        asset = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .asset)
    }
}

struct ProgressBody: Decodable {
    var event: VideoProgress

    enum CodingKeys: String, CodingKey, CaseIterable { case event }

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
struct PlaybackErrorBody: Decodable {
    var code: Int

    enum CodingKeys: String, CodingKey, CaseIterable { case code }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        code = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .code)
        guard (100...999).contains(code) else {
            throw StrictJSON.Failure(path: "code", reason: "must be a VAST error code, 100 to 999, not \(code)")
        }
    }
}
