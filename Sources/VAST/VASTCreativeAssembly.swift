/// Builds the playable `VASTCreative` of an InLine ad reached through `wrappers`, or says why there is none.
/// The InLine must have creatives (101), a Linear one (201), a playable media file (403) and a duration (101).
enum VASTCreativeAssembly {
    static func creative(
        ad: VASTDocument.Ad, inLine: VASTDocument.InLine, wrappers: [VASTDocument.Wrapper], adName: String,
        errorURLs: [String], preferences: VASTMediaPreferences
    ) -> Result<VASTCreative, VASTError> {
        func failure(_ code: VASTErrorCode, _ message: String) -> Result<VASTCreative, VASTError> {
            .failure(VASTError(code: code, message: message, errorURLs: errorURLs))
        }
        guard let creatives = inLine.creatives, !creatives.isEmpty else {
            return failure(.schema, "\(adName) is an InLine without creatives")
        }
        let linears = creatives.compactMap(\.linear)
        guard !linears.isEmpty else {
            return failure(.unexpectedLinearity, "\(adName) has no Linear creative (only non-linear or companion ads)")
        }
        var chosen: (linear: VASTDocument.Linear, mediaFile: VASTMediaFile)?
        for linear in linears {
            if let mediaFile = VASTMediaSelection.choose(linear.mediaFiles, preferences: preferences) {
                chosen = (linear, mediaFile)
                break
            }
        }
        guard let chosen else {
            let types = VASTURLList.unique(
                linears.flatMap(\.mediaFiles).map { file in
                    file.apiFramework.map { "\(file.mimeType) (\($0))" } ?? file.mimeType
                })
            let found = types.isEmpty ? "no media files" : "only " + types.joined(separator: ", ")
            return failure(.noSupportedMediaFile, "\(adName) has no media file our player can play: \(found)")
        }
        guard let duration = chosen.linear.durationMilliseconds else {
            return failure(.schema, "\(adName) has a Linear without a valid Duration")
        }

        let wrapperLinears = wrappers.map { $0.creatives.compactMap(\.linear) }
        let linearsInOrder = wrapperLinears.flatMap { $0 } + [chosen.linear]
        var tracking: [String: [String]] = [:]
        var progress: [VASTProgressTracker] = []
        for event in linearsInOrder.flatMap(\.trackingEvents) {
            if event.event == "progress", let offset = event.offset {
                let tracker = VASTProgressTracker(
                    offsetMilliseconds: offset.milliseconds(ofDuration: duration), url: event.url)
                if !progress.contains(tracker) {
                    progress.append(tracker)
                }
            } else {
                tracking[event.event] = VASTURLList.merged(tracking[event.event] ?? [], [event.url])
            }
        }
        progress = progress.enumerated()
            .sorted { ($0.element.offsetMilliseconds, $0.offset) < ($1.element.offsetMilliseconds, $1.offset) }
            .map(\.element)

        var icons = chosen.linear.icons
        for icon in wrapperLinears.flatMap({ $0 }).flatMap(\.icons)
        where icon.program == nil || !icons.contains(where: { $0.program == icon.program }) {
            icons.append(icon)
        }

        return .success(
            VASTCreative(
                adID: ad.id,
                adSystem: inLine.adSystem,
                adTitle: inLine.adTitle,
                advertiser: inLine.advertiser,
                mediaFile: chosen.mediaFile,
                durationMilliseconds: duration,
                skipOffsetMilliseconds: chosen.linear.skipOffset?.milliseconds(ofDuration: duration),
                impressions: VASTURLList.unique(wrappers.flatMap(\.impressions) + inLine.impressions),
                tracking: tracking,
                progressTracking: progress,
                clickThrough: chosen.linear.clickThrough
                    ?? wrapperLinears.flatMap { $0 }.compactMap(\.clickThrough).last,
                clickTracking: VASTURLList.unique(linearsInOrder.flatMap(\.clickTracking)),
                icons: icons,
                errorURLs: errorURLs,
                pricing: inLine.pricing ?? wrappers.compactMap(\.pricing).last,
                wrapperDepth: wrappers.count
            ))
    }
}
