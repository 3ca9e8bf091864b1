import SharedTypes

/// What a trace keeps of the texts remote servers and adapters wrote: a bidder may answer 4 MiB
/// with a seat, a creative id or advertiser domains as long as it likes, and a network's
/// message may carry its answer. Each is cut to a length a developer reads, so that one trace
/// stays small and the ring's byte bound means what it says.
extension Trace {
    /// Identifiers (seat, bid id, creative id, a domain).
    static let maxIdentifier = 128
    /// Messages (why a source failed, why an adapter was not asked), and a source's parameter,
    /// which a test load's `line_item` names.
    static let maxMessage = 512
    /// Advertiser domains kept per bid.
    static let maxDomains = 16

    func clipped() -> Trace {
        switch self {
        case .load(var trace):
            trace.message = trace.message.map { Self.clip($0, Self.maxMessage) }
            for index in trace.bidders.indices {
                trace.bidders[index].parameter = Self.clip(trace.bidders[index].parameter, Self.maxMessage)
                trace.bidders[index].message = trace.bidders[index].message.map { Self.clip($0, Self.maxMessage) }
                trace.bidders[index].currency = trace.bidders[index].currency.map { Self.clip($0, Self.maxIdentifier) }
                trace.bidders[index].bid = trace.bidders[index].bid.map(Self.clip)
            }
            for index in trace.sources.indices {
                trace.sources[index].parameter = Self.clip(trace.sources[index].parameter, Self.maxMessage)
                trace.sources[index].message = trace.sources[index].message.map { Self.clip($0, Self.maxMessage) }
            }
            return .load(trace)
        case .signals(var trace):
            trace.requestID = Self.clip(trace.requestID, Self.maxIdentifier)
            for index in trace.adapters.indices {
                trace.adapters[index].message = trace.adapters[index].message.map { Self.clip($0, Self.maxMessage) }
            }
            return .signals(trace)
        }
    }

    private static func clip(_ details: BidDetails) -> BidDetails {
        BidDetails(
            seat: details.seat.map { clip($0, maxIdentifier) }, bidID: details.bidID.map { clip($0, maxIdentifier) },
            creativeID: details.creativeID.map { clip($0, maxIdentifier) },
            advertiserDomains: details.advertiserDomains.prefix(maxDomains).map { clip($0, maxIdentifier) })
    }

    /// `text` whole when it is at most `limit` characters, else its first `limit - 1` and "…".
    static func clip(_ text: String, _ limit: Int) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit - 1)) + "…"
    }
}
