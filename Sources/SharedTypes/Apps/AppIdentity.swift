/// The app a request speaks for, as the daemon recognized it from the kernel's word about the
/// peer (never from what the client says): its id, what it may do, and what bid requests say
/// of it. A reference to one immutable record: every ad, load and retry holds its app, and a
/// copy costs a pointer, not the description again (2,000 ads held at the store's cap).
public struct AppIdentity: Sendable, Equatable {
    private final class Record: Sendable {
        let id: String
        let capabilities: Set<AppCapability>
        let description: AppDescription?

        init(id: String, capabilities: Set<AppCapability>, description: AppDescription?) {
            self.id = id
            self.capabilities = capabilities
            self.description = description
        }
    }

    private let record: Record

    public init(id: String, capabilities: Set<AppCapability>, description: AppDescription? = nil) {
        record = Record(id: id, capabilities: capabilities, description: description)
    }

    /// A registered app's id (`tv.example.news`), or an anonymous one's (`uid:1000`).
    public var id: String { record.id }
    public var capabilities: Set<AppCapability> { record.capabilities }
    /// Nil for an app the registry does not list.
    public var description: AppDescription? { record.description }

    public var isRegistered: Bool { description != nil }

    public func may(_ capability: AppCapability) -> Bool { capabilities.contains(capability) }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.record === rhs.record
            || (lhs.id == rhs.id && lhs.capabilities == rhs.capabilities && lhs.description == rhs.description)
    }
}
