import Mediation
import SharedTypes
import VAST

/// VAST as a rewarded video ad, for the `vast` and `openrtb` networks: wrappers followed
/// through the daemon's HTTP client, every error URL fired once with its code through the
/// tracker queue, the creative's trackers keyed by the progress the client reports.
struct RewardedVideo {
    /// What the device's player plays.
    static let mimeTypes = VASTMediaPreferences().mimeTypes

    let services: AdNetworkServices
    /// The line item's request: its deadline bounds every fetch.
    let request: NetworkAdRequest
    var preferences = VASTMediaPreferences()
    /// Each wrapper or tag fetch, at most: less when the line item's deadline is nearer.
    var fetchTimeout: Duration = .seconds(2)

    /// Wrapper tags are fetched with their macros filled, each within what is left of the
    /// line item's time, so that a slow wrapper still gets its 301 error URLs fired.
    private var resolver: VASTResolver {
        let fetcher = services.fetcher
        let timeout = fetchTimeout
        let request = self.request
        return VASTResolver(
            preferences: preferences, maximumDocumentDepth: services.limits.maximumDocumentDepth
        ) { url in
            try await fetcher.fetch(VASTMacros.expand(url), timeout: request.budget(timeout))
        }
    }

    /// The ad behind an ad tag URL, fetched with the request's macros filled (the app, its
    /// advertising id, its privacy state). The document is known by the tag with the generic
    /// macros alone, so that no message (nor a relative wrapper's resolution) carries the id.
    func load(tagURL: String, reward: Reward) async throws(AdLoadError) -> NetworkAd {
        let url = VASTMacros.expand(tagURL, request: VASTMacros.RequestValues(request))
        let document: [UInt8]
        do {
            document = try await services.fetcher.fetch(url, timeout: request.budget(fetchTimeout))
        } catch {
            throw AdLoadError(error.kind == .timeout ? .timeout : .networkError, "the ad tag failed: \(error.message)")
        }
        return try ad(from: await resolver.resolve(document: document, url: VASTMacros.expand(tagURL)), reward: reward)
    }

    /// The ad in a VAST document (an OpenRTB video bid's `adm`).
    func load(document: String, url: String?, reward: Reward) async throws(AdLoadError) -> NetworkAd {
        try ad(from: await resolver.resolve(document: Array(document.utf8), url: url), reward: reward)
    }

    private func ad(from resolution: VASTResolution, reward: Reward) throws(AdLoadError) -> NetworkAd {
        switch resolution {
        case .ad(let creative, let discarded):
            for error in discarded { fire(error.errorURLs, code: error.code) }
            return Self.networkAd(creative, reward: reward)
        case .noAd(let errorURLs):
            fire(errorURLs, code: .noAdsAfterWrapper)
            throw AdLoadError(.noFill, "the VAST document has no ad")
        case .failure(let error):
            fire(error.errorURLs, code: error.code)
            throw AdLoadError(.networkError, "VAST error \(error.code.rawValue): \(error.message)")
        }
    }

    private func fire(_ urls: [String], code: VASTErrorCode) {
        services.trackers.enqueue(urls.map { VASTMacros.expand($0, errorCode: code) }, kind: .error)
    }

    static func networkAd(_ creative: VASTCreative, reward: Reward) -> NetworkAd {
        let duration = creative.durationMilliseconds
        var progress: [VideoProgress: [String]] = [
            .start: (creative.tracking["creativeView"] ?? []) + (creative.tracking["start"] ?? []),
            .firstQuartile: creative.tracking["firstQuartile"] ?? [],
            .midpoint: creative.tracking["midpoint"] ?? [],
            .thirdQuartile: creative.tracking["thirdQuartile"] ?? [],
            .complete: creative.tracking["complete"] ?? [],
            .skip: creative.tracking["skip"] ?? [],
        ]
        // Offset trackers fire with the first progress the client reports at or past them.
        let marks: [(VideoProgress, Double)] = [
            (.start, 0), (.firstQuartile, 0.25), (.midpoint, 0.5), (.thirdQuartile, 0.75), (.complete, 1),
        ]
        for tracker in creative.progressTracking {
            let mark = marks.first { Double(tracker.offsetMilliseconds) <= $0.1 * Double(duration) }?.0 ?? .complete
            progress[mark, default: []].append(tracker.url)
        }
        let icon = creative.icons.first { $0.program?.lowercased() == "adchoices" } ?? creative.icons.first
        let adChoices = icon.flatMap { icon -> AdChoices? in
            guard let url = icon.clickThrough ?? icon.imageURL else { return nil }
            return AdChoices(
                icon: icon.imageURL.map { NativeImage(url: $0, width: icon.width, height: icon.height) }, url: url)
        }
        let media = creative.mediaFile
        let video = VideoCreative(
            mediaURL: media.url, mimeType: media.mimeType, width: media.width, height: media.height,
            bitrate: media.bitrate, durationMilliseconds: duration,
            skipOffsetMilliseconds: creative.skipOffsetMilliseconds, clickThrough: creative.clickThrough,
            adChoices: adChoices)
        return NetworkAd(
            content: .rewarded(reward), clickDestination: creative.clickThrough ?? "",
            impressionTrackers: creative.impressions, clickTrackers: creative.clickTracking,
            value: creative.pricing.flatMap { AdValue(cpm: $0.value, currency: $0.currency, precision: "estimated") },
            video: video, progressTrackers: progress.filter { !$0.value.isEmpty },
            dismissTrackers: (creative.tracking["closeLinear"] ?? []) + (creative.tracking["close"] ?? []),
            errorTrackers: creative.errorURLs,
            trackerMacros: { url, code in VASTMacros.expand(url, code: code) })
    }
}
