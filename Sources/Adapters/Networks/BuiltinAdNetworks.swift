import Mediation

/// The ad networks every daemon knows; the configuration's waterfalls choose which run.
public enum BuiltinAdNetworks {
    public static let types: [any AdNetworkAdapter.Type] = [
        TestAdNetwork.self, HouseAdNetwork.self, OpenRTBAdNetwork.self, VASTAdNetwork.self,
    ]

    public static var registry: AdNetworkRegistry { AdNetworkRegistry(types) }
}
