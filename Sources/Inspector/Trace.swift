import SharedTypes

/// A trace the ring keeps: of an ad load or of a signals request.
public enum Trace: Sendable, Equatable {
    case load(LoadTrace)
    case signals(SignalsTrace)

    public var id: UInt64 {
        get {
            switch self {
            case .load(let trace): trace.id
            case .signals(let trace): trace.id
            }
        }
        set {
            switch self {
            case .load(var trace):
                trace.id = newValue
                self = .load(trace)
            case .signals(var trace):
                trace.id = newValue
                self = .signals(trace)
            }
        }
    }

    /// The load's trace, when it is one.
    public var load: LoadTrace? {
        guard case .load(let trace) = self else { return nil }
        return trace
    }

    /// The signals request's trace, when it is one.
    public var signals: SignalsTrace? {
        guard case .signals(let trace) = self else { return nil }
        return trace
    }

    /// The app it was for.
    public var app: String? {
        switch self {
        case .load(let trace): trace.app
        case .signals(let trace): trace.app
        }
    }

    /// Whether `asker` may see it: its own app, an `inspect` app, or the core (no app) sees all.
    public func isVisible(to asker: AppIdentity?) -> Bool {
        guard let asker else { return true }
        return app == asker.id || asker.may(.inspect)
    }

    /// About what it holds in memory: what the ring's byte bound counts (each string's bytes and
    /// a fixed cost per record), cheap enough to count for every request.
    var estimatedBytes: Int {
        switch self {
        case .load(let trace):
            let bidders = trace.bidders.reduce(0) { sum, bidder in
                sum + 160 + bidder.network.utf8.count + bidder.parameter.utf8.count + (bidder.message?.utf8.count ?? 0)
                    + (bidder.bid.map { details in
                        64 + (details.seat?.utf8.count ?? 0) + (details.bidID?.utf8.count ?? 0)
                            + (details.creativeID?.utf8.count ?? 0)
                            + details.advertiserDomains.reduce(0) { $0 + 16 + $1.utf8.count }
                    } ?? 0)
            }
            let sources = trace.sources.reduce(0) { sum, source in
                sum + 96 + source.network.utf8.count + source.parameter.utf8.count + (source.message?.utf8.count ?? 0)
            }
            return 320 + (trace.app?.utf8.count ?? 0) + trace.adUnit.utf8.count + (trace.message?.utf8.count ?? 0)
                + (trace.adID?.utf8.count ?? 0) + bidders + sources
        case .signals(let trace):
            let adapters = trace.adapters.reduce(0) { sum, adapter in
                sum + 96 + adapter.adapter.utf8.count + adapter.outcome.utf8.count + (adapter.message?.utf8.count ?? 0)
                    + adapter.sealedFor.reduce(0) { $0 + 16 + $1.utf8.count }
            }
            return 256 + trace.requestID.utf8.count + (trace.app?.utf8.count ?? 0) + adapters
        }
    }
}
