import FoundationEssentials
import SharedTypes

/// Something that happened to an ad, streamed to clients (`GET /v1/events`) and counted.
public struct AdEvent: Sendable, Equatable {
    public enum Name: String, Sendable, Codable, CaseIterable {
        case loaded
        case failedToLoad = "failed_to_load"
        case impression
        case click
        case willPresent = "will_present"
        case failedToPresent = "failed_to_present"
        case dismissed
        case rewardEarned = "reward_earned"
        case videoStart = "video_start"
        case videoComplete = "video_complete"
        case paid
        /// The first event of a resumed stream whose `Last-Event-ID` is older than the events
        /// kept: those between it and `first_available` are gone.
        case eventsMissed = "events_missed"
    }

    public var name: Name
    /// Nil for a failed load, which made no ad.
    public var adID: String?
    public var adUnit: String
    /// The app whose ad it is (whose load failed): only it, and an app with `inspect`, sees the
    /// event. Nil for the core alone and for the stream's own events (`events_missed`).
    public var app: String?
    /// The event's own fields, besides `ad_id`, `ad_unit` and `app`.
    public var fields: [String: EventField]
    /// Its number in the daemon's event stream (the SSE `id:`), increasing; 0 until published.
    public var sequence: UInt64 = 0

    public init(name: Name, adID: String?, adUnit: String, app: String? = nil, fields: [String: EventField] = [:]) {
        self.name = name
        self.adID = adID
        self.adUnit = adUnit
        self.app = app
        self.fields = fields
    }

    /// Whether app `asker` may see the event: the app it is for, or one with `inspect`. An event
    /// of no app (one journaled before apps owned their events) is an `inspect` app's alone;
    /// `events_missed` is the stream's own, anyone's. Any event, for the core alone (no asker).
    public func isVisible(to asker: AppIdentity?) -> Bool {
        guard let asker, name != .eventsMissed else { return true }
        return app == asker.id || asker.may(.inspect)
    }

    /// The event's `data:` line: one JSON object.
    public func json() -> String {
        var object: [String: EventField] = fields
        object["ad_unit"] = .string(adUnit)
        object["ad_id"] = adID.map(EventField.string) ?? .null
        if let app { object["app"] = .string(app) }
        object["event"] = .string(name.rawValue)
        return (try? WireFormat.encoder().encode(object)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// A value in an event's JSON.
public enum EventField: Sendable, Equatable, Codable {
    case string(String)
    case number(Double)
    case integer(Int64)
    case bool(Bool)
    case null
    case object([String: EventField])

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .object(let value): try container.encode(value)
        }
    }

    /// As `encode` wrote it: a whole number is an integer.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else {
            self = .object(try container.decode([String: EventField].self))
        }
    }
}
