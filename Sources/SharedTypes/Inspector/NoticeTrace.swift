import Synchronization

/// One win, loss or billing notice a load's bidder (or OpenRTB line item) is owed, as the
/// inspector shows it: queued when owed, then each try's HTTP status until it settles.
@WireKeys
@MemberwiseInit
public struct NoticeTrace: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable {
        case win, loss, billing
    }

    public enum Outcome: String, Sendable, Codable {
        /// Owed, not yet tried (or its try not yet answered).
        case queued
        /// Answered 2xx or 3xx.
        case sent
        /// Refused for good (4xx, a URL that cannot be sent).
        case refused
        /// Failed for now (5xx, a transport error): tried again later.
        case retrying
        /// Given up (past its max age).
        case givenUp = "given_up"
    }

    public var network: String
    public var parameter: String
    public var kind: Kind
    public var outcome: Outcome
    /// The last try's HTTP status, when one answered.
    public var status: Int?
    public var attempts: Int
}

/// How much of what remote servers and adapters wrote a trace keeps: a bidder may answer 4 MiB
/// with a seat, a creative id or advertiser domains as long as it likes, and a network's
/// message may carry its answer.
public enum TraceTextLimits {
    /// Identifiers (seat, bid id, creative id, a domain, a currency, a request id).
    public static let identifier = 128
    /// Messages (why a source failed, why an adapter was not asked), and a source's parameter,
    /// which a test load's `line_item` names.
    public static let message = 512
    /// Advertiser domains kept per bid.
    public static let domains = 16
}

/// Where a load's notices are noted as they are owed and tried; the trace reads it when
/// answered, so that a notice sent after the load ended still shows. Bounded: at most
/// `maxNotices` are noted (a bidder owes a few).
public final class NoticeLog: Sendable {
    public static let maxNotices = 64

    /// Who a notice is for: one bidder or line item of the load.
    public struct Source: Sendable {
        public let log: NoticeLog
        public let network: String
        public let parameter: String

        /// `parameter` is clipped as the trace clips its bidders' and sources'.
        public init(log: NoticeLog, network: String, parameter: String) {
            self.log = log
            self.network = network
            self.parameter = parameter.clipped(to: TraceTextLimits.message)
        }

        /// What notes each notice of `kind` as it is owed: the call it returns per notice
        /// reports that notice's tries (nil once the log is full).
        public func observer(_ kind: NoticeTrace.Kind) -> () -> (@Sendable (NoticeTrace.Outcome, Int?) -> Void)? {
            { owed(kind) }
        }

        /// Notes a notice of `kind` owed now; the returned call reports each try of it.
        public func owed(_ kind: NoticeTrace.Kind) -> (@Sendable (NoticeTrace.Outcome, Int?) -> Void)? {
            let notice = NoticeTrace(
                network: network, parameter: parameter, kind: kind, outcome: .queued, status: nil, attempts: 0)
            guard let index = log.add(notice) else { return nil }
            return { [log] outcome, status in log.update(index, outcome: outcome, status: status) }
        }
    }

    private let entries = Mutex<[NoticeTrace]>([])

    public init() {}

    public var notices: [NoticeTrace] { entries.withLock { $0 } }

    private func add(_ notice: NoticeTrace) -> Int? {
        entries.withLock { entries in
            guard entries.count < Self.maxNotices else { return nil }
            entries.append(notice)
            return entries.count - 1
        }
    }

    private func update(_ index: Int, outcome: NoticeTrace.Outcome, status: Int?) {
        entries.withLock { entries in
            entries[index].outcome = outcome
            entries[index].status = status
            if outcome != .givenUp { entries[index].attempts += 1 }
        }
    }
}
