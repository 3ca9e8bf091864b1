import Adapters
import Mediation
import SharedTypes

extension ConfigurationResolver {
    /// `ad_networks` and `ad_units`: networks that exist, with setups they accept; units whose
    /// line items name known networks and suit them. Every network and unit is checked.
    func mediation(signalAdapters: Set<String>) throws -> MediationConfiguration {
        let networkTypes = BuiltinAdNetworks.registry
        // A network whose setup failed is reported once: its line items are not judged by it.
        var failedSetups = Set<String>()
        for name in settings.adNetworks.keys.sorted()
        where try problems.collecting({ try network(name, types: networkTypes) }) == nil {
            failedSetups.insert(name)
        }
        var units: [AdUnit] = []
        for (id, unit) in settings.adUnits.sorted(by: { $0.key < $1.key }) {
            let checked = try problems.collecting {
                try self.unit(
                    id, unit, types: networkTypes, signalAdapters: signalAdapters, failedSetups: failedSetups)
            }
            if let checked { units.append(checked) }
        }
        let used = Set(settings.adUnits.values.flatMap { $0.waterfall.map(\.network) })
        let networks = used.union(settings.adNetworks.keys).sorted().map { name in
            let network = settings.adNetworks[name]
            return AdNetworkConfiguration(
                name: name, setup: resolvingPaths(network?.setup ?? AdapterOptions()), lazy: network?.lazy ?? false,
                initTimeout: .milliseconds(network?.initTimeoutMilliseconds ?? 10_000))
        }
        return MediationConfiguration(units: units, networks: networks)
    }

    /// One entry of `ad_networks`: a known network, its setup keys declared and accepted.
    func network(_ name: String, types: AdNetworkRegistry) throws {
        guard let type = types.type(named: name) else {
            throw fail(
                "ad_networks.\(name)",
                "no ad network named \"\(name)\" (known: \(types.names.joined(separator: ", ")))")
        }
        let setup = resolvingPaths(settings.adNetworks[name]?.setup ?? AdapterOptions())
        let unknown = unknownKeys(
            in: setup, declared: type.setupKeys, at: "ad_networks.\(name).setup", kind: "setup key")
        guard unknown.isEmpty else { throw ConfigurationErrors(errors: unknown) }
        if let problem = type.problem(withSetup: setup) {
            throw fail("ad_networks.\(name).setup", problem)
        }
    }

    /// One entry of `ad_units`: each line item's network known, its options declared, and the
    /// item suiting the network and the unit's format.
    func unit(
        _ id: String, _ unit: AdUnitSettings, types: AdNetworkRegistry, signalAdapters: Set<String>,
        failedSetups: Set<String> = []
    ) throws -> AdUnit {
        guard !id.isEmpty, id.utf8.count <= 256 else {
            throw fail("ad_units", "an ad unit id must be 1 to 256 bytes")
        }
        var errors: [ConfigurationError] = []
        let waterfall = unit.waterfall.map {
            LineItem(
                network: $0.network, parameter: $0.parameter, timeout: .milliseconds($0.timeoutMilliseconds),
                options: $0.options, consent: $0.consent?.requirement ?? .none)
        }
        for (index, item) in waterfall.enumerated() {
            let at = "ad_units.\(id).waterfall[\(index)]"
            guard let type = types.type(named: item.network) else {
                errors.append(
                    fail(
                        "\(at).network",
                        "no ad network named \"\(item.network)\" (known: \(types.names.joined(separator: ", ")))"))
                continue
            }
            let unknown = unknownKeys(
                in: item.options, declared: type.lineItemOptionKeys, at: "\(at).options", kind: "option")
            guard unknown.isEmpty else {
                errors += unknown
                continue
            }
            guard !failedSetups.contains(item.network) else { continue }
            let setup = resolvingPaths(settings.adNetworks[item.network]?.setup ?? AdapterOptions())
            if let problem = type.problem(with: item, format: unit.format, setup: setup, signalAdapters: signalAdapters)
            {
                errors.append(fail(at, problem))
            }
        }
        var callback: String?
        do {
            callback = try callbackURL(unit, id: id)
        } catch let error as ConfigurationError {
            errors.append(error)
        }
        guard errors.isEmpty else { throw ConfigurationErrors(errors: errors) }
        return AdUnit(
            id: id, format: unit.format, waterfall: waterfall, maxRetries: unit.maxRetries, preload: unit.preload,
            expiry: .milliseconds(unit.expiryMilliseconds), ssvCallbackURL: callback)
    }
}
