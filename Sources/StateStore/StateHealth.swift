import SQLiteNIO
import Synchronization

/// Whether the state database takes commits now: the last write failed (a full disk, a file
/// gone read-only) or none has since one worked. Every write through `StateDatabase` reports
/// here, so what needs a commit can be refused up front instead of being half applied.
public final class StateHealth: Sendable {
    /// Since when (monotonic) writes fail, and the last failure's text; nil while they work.
    public struct Outage: Sendable, Equatable {
        public var since: ContinuousClock.Instant
        public var reason: String
    }

    private let state = Mutex<Outage?>(nil)

    public init() {}

    /// The outage under way, if any.
    public var outage: Outage? { state.withLock { $0 } }

    public var isAvailable: Bool { outage == nil }

    func succeeded() {
        state.withLock { $0 = nil }
    }

    /// Told of a failed write: only the disk's and the file's faults make an outage (full,
    /// I/O error, read-only, cannot open, damaged); a constraint or an interrupted statement
    /// is that write's own.
    func failed(_ error: any Error) {
        guard let error = error as? SQLiteError, StateFault(error.reason) != nil else { return }
        let reason = StateDatabaseError(path: "", underlying: error).reason
        state.withLock { outage in
            outage = Outage(since: outage?.since ?? .now, reason: reason)
        }
    }
}
