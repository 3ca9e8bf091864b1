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
        let used = Set(settings.adUnits.values.flatMap { ($0.waterfall + ($0.bidders ?? [])).map(\.network) })
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

    /// One entry of `ad_units`: each line item's (and bidder's) network known, its options
    /// declared, and the item suiting the network and the unit's format; a bidder's network bids.
    func unit(
        _ id: String, _ unit: AdUnitSettings, types: AdNetworkRegistry, signalAdapters: Set<String>,
        failedSetups: Set<String> = []
    ) throws -> AdUnit {
        guard !id.isEmpty, id.utf8.count <= 256 else {
            throw fail("ad_units", "an ad unit id must be 1 to 256 bytes")
        }
        var errors: [ConfigurationError] = []
        let currency = unit.currency ?? "USD"
        func lineItems(_ settings: [LineItemSettings], at list: String, bidding: Bool) -> [LineItem] {
            let items = settings.map {
                LineItem(
                    network: $0.network, parameter: $0.parameter, timeout: .milliseconds($0.timeoutMilliseconds),
                    options: $0.options, consent: $0.consent?.requirement ?? .none, cpm: $0.cpm)
            }
            for (index, item) in items.enumerated() {
                errors += check(
                    item, at: "ad_units.\(id).\(list)[\(index)]", format: unit.format, currency: currency,
                    bidding: bidding, types: types, signalAdapters: signalAdapters, failedSetups: failedSetups)
            }
            return items
        }
        let waterfall = lineItems(unit.waterfall, at: "waterfall", bidding: false)
        let bidders = lineItems(unit.bidders ?? [], at: "bidders", bidding: true)
        var callback: String?
        do {
            callback = try callbackURL(unit, id: id)
        } catch let error as ConfigurationError {
            errors.append(error)
        }
        guard errors.isEmpty else { throw ConfigurationErrors(errors: errors) }
        return AdUnit(
            id: id, format: unit.format, waterfall: waterfall, maxRetries: unit.maxRetries, preload: unit.preload,
            expiry: .milliseconds(unit.expiryMilliseconds), ssvCallbackURL: callback, bidders: bidders,
            floorCPM: unit.floorCPM, currency: currency, auction: unit.auction?.timing ?? AuctionTiming(),
            quality: AdQuality(
                blockedAdvertisers: unit.blockedAdvertisers ?? [], blockedCategories: unit.blockedCategories ?? [],
                categoryTaxonomy: unit.categoryTaxonomy ?? 1, blockedApps: unit.blockedApps ?? [],
                blockedAttributes: unit.blockedAttributes ?? [],
                requireAdvertiserDomain: unit.requireAdvertiserDomain ?? false),
            capping: FrequencyCapping(
                caps: unit.frequencyCaps?.map(\.cap) ?? [], pacing: unit.pacingMilliseconds.map { .milliseconds($0) }))
    }

    /// What is wrong with one line item at `at`: its network unknown (or, for a bidder, not one
    /// that bids), an option it does not declare, or what the network itself finds.
    private func check(
        _ item: LineItem, at: String, format: AdFormat, currency: String, bidding: Bool, types: AdNetworkRegistry,
        signalAdapters: Set<String>, failedSetups: Set<String>
    ) -> [ConfigurationError] {
        guard let type = types.type(named: item.network) else {
            return [
                fail(
                    "\(at).network",
                    "no ad network named \"\(item.network)\" (known: \(types.names.joined(separator: ", ")))")
            ]
        }
        if bidding, !(type is any BiddingAdNetwork.Type) {
            let bidders = types.names.filter { types.type(named: $0) is any BiddingAdNetwork.Type }
            return [
                fail(
                    "\(at).network",
                    "\(item.network) does not bid (networks that bid: \(bidders.joined(separator: ", ")))")
            ]
        }
        let unknown = unknownKeys(
            in: item.options, declared: type.lineItemOptionKeys, at: "\(at).options", kind: "option")
        guard unknown.isEmpty else { return unknown }
        guard !failedSetups.contains(item.network) else { return [] }
        let setup = resolvingPaths(settings.adNetworks[item.network]?.setup ?? AdapterOptions())
        if let problem = type.problem(
            with: item, format: format, currency: currency, setup: setup, signalAdapters: signalAdapters)
        {
            return [fail(at, problem)]
        }
        return []
    }
}

extension ConfigurationResolver {
    func resolvingPaths(_ options: AdapterOptions) -> AdapterOptions {
        AdapterOptions(resolvingPaths(options.values))
    }
}
