import SharedTypes

/// The ad-network adapter types a daemon knows, by network name.
public struct AdNetworkRegistry: Sendable {
    private var types: [String: any AdNetworkAdapter.Type] = [:]

    public init(_ types: [any AdNetworkAdapter.Type] = []) {
        for type in types { self.types[type.name] = type }
    }

    public func type(named name: String) -> (any AdNetworkAdapter.Type)? { types[name] }

    public var names: [String] { types.keys.sorted() }
}

/// One configured network: its type, setup, and when to set it up.
@MemberwiseInit
public struct AdNetworkConfiguration: Sendable, Equatable {
    public var name: String
    /// Its `setup`, decoded by its type when the configuration was read; nil: its defaults.
    public var setup: DecodedOptions?
    /// Set up when the daemon starts (the default), or on its first load.
    public var lazy: Bool = false
    public var initTimeout: Duration = Self.standardInitTimeout
    /// A network's deadline to be set up, unless the configuration sets one.
    public static let standardInitTimeout = Duration.seconds(10)
}
