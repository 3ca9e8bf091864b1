import Consent
import SharedTypes
import Timing

/// Each load's trace for the inspector (`services.tracer`): who asked, under what privacy
/// state, every bidder and source with its start and latency, and how the load ended.
extension AdStore {
    /// Leaves the trace of `request`'s load, begun at `startedAt` (wall milliseconds) and
    /// `duration` long, which tried `tried` and ended `result`.
    nonisolated static func trace(
        _ request: AdLoadRequest, to tracer: any TraceRecorder, startedAt: Int64, duration: Duration,
        privacy: PrivacySummary, tried: Waterfall.Tried, retry: Int?, result: LoadResult
    ) {
        var trace = LoadTrace(
            id: 0, app: request.app?.id, adUnit: request.adUnit, format: request.format,
            startedAtMilliseconds: startedAt, durationMilliseconds: milliseconds(duration), outcome: "filled",
            retry: retry, test: request.test, privacy: privacy, bidders: tried.bidders, sources: tried.sources)
        switch result {
        case .success(let ad):
            trace.adID = ad.adID
            trace.network = ad.responseInfo.network
        case .failure(let failure):
            trace.outcome = failure.error.code.rawValue
            trace.message = failure.error.message
        }
        tracer.record(trace, notices: tried.notices)
    }
}
