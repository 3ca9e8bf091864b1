import Adapters
import Mediation
import SharedTypes

extension ConfigurationResolver {
    /// `ad_networks` and `ad_units`: networks that exist, with setups they accept; units whose
    /// line items name known networks and suit them.
    func mediation(signalAdapters: Set<String>) throws -> MediationConfiguration {
        let networkTypes = BuiltinAdNetworks.registry
        for name in settings.adNetworks.keys.sorted() {
            guard let type = networkTypes.type(named: name) else {
                throw fail(
                    "ad_networks.\(name)",
                    "no ad network named \"\(name)\" (known: \(networkTypes.names.joined(separator: ", ")))")
            }
            if let problem = type.problem(withSetup: settings.adNetworks[name]?.setup ?? AdapterOptions()) {
                throw fail("ad_networks.\(name).setup", problem)
            }
        }
        var units: [AdUnit] = []
        var used = Set<String>()
        for (id, unit) in settings.adUnits.sorted(by: { $0.key < $1.key }) {
            guard !id.isEmpty, id.utf8.count <= 256 else {
                throw fail("ad_units", "an ad unit id must be 1 to 256 bytes")
            }
            for (index, item) in unit.waterfall.enumerated() where networkTypes.type(named: item.network) == nil {
                throw fail(
                    "ad_units.\(id).waterfall[\(index)].network",
                    "no ad network named \"\(item.network)\" (known: \(networkTypes.names.joined(separator: ", ")))")
            }
            used.formUnion(unit.waterfall.map(\.network))
            let waterfall = unit.waterfall.map {
                LineItem(
                    network: $0.network, parameter: $0.parameter, timeout: .milliseconds($0.timeoutMilliseconds),
                    options: $0.options)
            }
            for (index, item) in waterfall.enumerated() {
                let setup = settings.adNetworks[item.network]?.setup ?? AdapterOptions()
                if let type = networkTypes.type(named: item.network),
                    let problem = type.problem(
                        with: item, format: unit.format, setup: setup, signalAdapters: signalAdapters)
                {
                    throw fail("ad_units.\(id).waterfall[\(index)]", problem)
                }
            }
            units.append(
                AdUnit(
                    id: id, format: unit.format, waterfall: waterfall, maxRetries: unit.maxRetries,
                    preload: unit.preload, expiry: .milliseconds(unit.expiryMilliseconds)))
        }
        let networks = used.union(settings.adNetworks.keys).sorted().map { name in
            let network = settings.adNetworks[name]
            return AdNetworkConfiguration(
                name: name, setup: network?.setup ?? AdapterOptions(), lazy: network?.lazy ?? false,
                initTimeout: .milliseconds(network?.initTimeoutMilliseconds ?? 10_000))
        }
        return MediationConfiguration(units: units, networks: networks)
    }
}
