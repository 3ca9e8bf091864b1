import SharedTypes
import Timing

/// Where the event stream's recent events are kept across restarts, so that their numbers go
/// on from where they were and a client that reconnects after a restart still resumes. Written
/// in batches behind the stream (an event is not an acknowledgement: a crash may lose the last
/// few from the journal, never from a client already sent them).
public protocol EventJournal: Sendable {
    /// The events kept, oldest first, each with when it was published (wall-clock ms).
    func recent() async throws -> [(event: AdEvent, at: Int64)]
    /// Appends `events`, then drops all but the newest `keep` and those older than `since`.
    func append(_ events: [(event: AdEvent, at: Int64)], keep: Int, since: Int64) async throws
    /// The highest event number handed out or reserved: a restart numbers on after it, so an id
    /// a client saw is never reused, even when the journal lost its last events to a crash.
    func reserved() async throws -> UInt64
    /// Sets it to `number`, durably: raised before numbers up to it are handed out, lowered to
    /// the last one handed out at a clean stop.
    func reserve(through number: UInt64) async throws
}

/// How many events are kept for resuming, and for how long.
@MemberwiseInit
public struct EventRetention: Sendable, Equatable {
    public var count: Int = 10_000
    public var age: Duration = .seconds(86_400)

    /// The oldest time (wall-clock ms) an event published by `now` is still kept at.
    func horizon(at now: Int64) -> Int64 { now - age.wholeMilliseconds }
}
