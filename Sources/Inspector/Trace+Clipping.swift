import SharedTypes

/// What a trace keeps of the texts remote servers and adapters wrote, each cut to
/// `TraceTextLimits`, so that one trace stays small and the ring's byte bound means what it says.
extension Trace {
    func clipped() -> Trace {
        let (identifier, message) = (TraceTextLimits.identifier, TraceTextLimits.message)
        switch self {
        case .load(var trace):
            trace.message = trace.message?.clipped(to: message)
            for index in trace.bidders.indices {
                trace.bidders[index].parameter = trace.bidders[index].parameter.clipped(to: message)
                trace.bidders[index].message = trace.bidders[index].message?.clipped(to: message)
                trace.bidders[index].currency = trace.bidders[index].currency?.clipped(to: identifier)
                trace.bidders[index].bid = trace.bidders[index].bid.map(Self.clip)
            }
            for index in trace.sources.indices {
                trace.sources[index].parameter = trace.sources[index].parameter.clipped(to: message)
                trace.sources[index].message = trace.sources[index].message?.clipped(to: message)
            }
            return .load(trace)
        case .signals(var trace):
            trace.requestID = trace.requestID.clipped(to: identifier)
            for index in trace.adapters.indices {
                trace.adapters[index].message = trace.adapters[index].message?.clipped(to: message)
            }
            return .signals(trace)
        }
    }

    private static func clip(_ details: BidDetails) -> BidDetails {
        let limit = TraceTextLimits.identifier
        return BidDetails(
            seat: details.seat?.clipped(to: limit), bidID: details.bidID?.clipped(to: limit),
            creativeID: details.creativeID?.clipped(to: limit),
            advertiserDomains: details.advertiserDomains.prefix(TraceTextLimits.domains).map { $0.clipped(to: limit) })
    }
}
