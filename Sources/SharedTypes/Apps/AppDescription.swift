/// What a registered app is, as bid requests name it (OpenRTB 2.6 `app`): its store bundle,
/// store URL, name, version, IAB content categories, and its publisher with the supply chain
/// that sells its inventory.
@Settings
public struct AppDescription: Codable, Sendable, Equatable {
    /// The store's id of the app (`com.example.news`, or a numeric store id).
    public var bundle: String?
    public var storeURL: String?
    public var name: String?
    public var version: String?
    /// IAB content categories, in the taxonomy `cattax` names.
    public var cat: [String] = []
    /// The category taxonomy (OpenRTB's list: 1 IAB Content 1.0 ... 7 IAB Content 3.1).
    @Bounds(1...7, "an IAB category taxonomy") public var cattax: Int?
    public var publisher: AppPublisher?

    public init() {}
}

/// The publisher of an app: who sells its inventory, and through whom (`schain`).
@Settings
public struct AppPublisher: Codable, Sendable, Equatable {
    public var id: String?
    public var name: String?
    public var domain: String?
    /// The supply chain's nodes up to this publisher, in order (OpenRTB 2.6 `source.schain`).
    public var schain: [SupplyChainNode] = []

    public init() {}
}

/// One node of a supply chain (IAB SupplyChain object 1.0): the advertising system's domain,
/// the seller's id in it, and whether it handles the payment.
@Settings
public struct SupplyChainNode: Codable, Sendable, Equatable {
    public var asi: String
    public var sid: String
    @Bounds(0...1) public var hp = 1

    public init(asi: String, sid: String, hp: Int = 1) {
        self.asi = asi
        self.sid = sid
        self.hp = hp
    }
}
