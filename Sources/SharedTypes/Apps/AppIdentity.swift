/// The app a request speaks for, as the daemon recognized it from the kernel's word about the
/// peer (never from what the client says): its id, what it may do, and what bid requests say
/// of it.
public struct AppIdentity: Sendable, Equatable {
    /// A registered app's id (`tv.example.news`), or an anonymous one's (`uid:1000`).
    public var id: String
    public var capabilities: Set<AppCapability>
    /// Nil for an app the registry does not list.
    public var description: AppDescription?

    public init(id: String, capabilities: Set<AppCapability>, description: AppDescription? = nil) {
        self.id = id
        self.capabilities = capabilities
        self.description = description
    }

    public var isRegistered: Bool { description != nil }

    public func may(_ capability: AppCapability) -> Bool { capabilities.contains(capability) }
}
