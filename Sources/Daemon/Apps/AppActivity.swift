import SharedTypes
import Synchronization

/// The apps that asked since the start, and when each last did (on the monotonic clock), for
/// `GET /v1/apps`: at most `capacity` apps are kept, the one seen longest ago forgotten first,
/// so that uids coming and going cannot grow it.
final class AppActivity: Sendable {
    struct Seen: Sendable {
        var app: AppIdentity
        var at: ContinuousClock.Instant
    }

    private let seen = Mutex<[String: Seen]>([:])
    let capacity: Int

    init(capacity: Int = 1024) {
        self.capacity = capacity
    }

    /// `app` asked at `now`.
    func saw(_ app: AppIdentity, at now: ContinuousClock.Instant = .now) {
        seen.withLock { seen in
            seen[app.id] = Seen(app: app, at: now)
            if seen.count > capacity, let oldest = seen.min(by: { $0.value.at < $1.value.at })?.key {
                seen[oldest] = nil
            }
        }
    }

    /// Each app seen, by id.
    var apps: [String: Seen] { seen.withLock { $0 } }
}
