import Logging
import SharedTypes
import Timing

/// What the log says of each load: at `info`, a load that failed and a load in which a line
/// item or bidder failed (an error, a timeout, a network not set up), at most once per ad unit
/// in `interval`; at `debug`, every load's sources. Messages are the networks' own, whose URLs
/// are already redacted; no consent string is in them.
struct AdLoadLog<C: Clock>: Sendable where C.Duration == Duration, C: Sendable {
    let logger: Logger
    let limit: RateLimitedLog<C>

    init(logger: Logger, clock: C, interval: Duration = .seconds(10)) {
        self.logger = logger
        limit = RateLimitedLog(clock: clock, interval: interval)
    }

    func record(unit: String, app: String?, _ result: Result<Waterfall.Fill, Waterfall.Failure>) {
        let sources = Self.sources(result.info)
        var metadata: Logger.Metadata = ["ad_unit": "\(unit)", "app": "\(app ?? "-")"]
        logger.debug("ad load", metadata: metadata.merging(["sources": "\(Self.describe(sources))"]) { $1 })
        let failed = sources.filter { ["error", "timeout", "not_ready"].contains($0.outcome) }
        if !failed.isEmpty { metadata["failed"] = "\(Self.describe(failed))" }
        switch result {
        case .failure(let failure):
            guard limit.shouldLog(unit) else { return }
            metadata["code"] = "\(failure.error.code.rawValue)"
            metadata["reason"] = "\(failure.error.message)"
            logger.info("ad load failed", metadata: metadata)
        case .success(let fill) where !failed.isEmpty:
            guard limit.shouldLog(unit) else { return }
            metadata["network"] = "\(fill.network)"
            logger.info("ad sources failed before the load filled", metadata: metadata)
        case .success:
            return
        }
    }

    private struct Source {
        var network: String
        var parameter: String
        var outcome: String
        var message: String?
    }

    /// The bids, then the waterfall's attempts.
    private static func sources(_ info: ResponseInfo) -> [Source] {
        (info.bids ?? []).map {
            Source(network: $0.network, parameter: $0.parameter, outcome: $0.outcome.rawValue, message: $0.message)
        }
            + info.attempts.map {
                Source(network: $0.network, parameter: $0.parameter, outcome: $0.outcome.rawValue, message: $0.message)
            }
    }

    private static func describe(_ sources: [Source]) -> String {
        sources.map { "\($0.network) \($0.parameter) \($0.outcome)" + ($0.message.map { ": \($0)" } ?? "") }
            .joined(separator: "; ")
    }
}
