import Adapters
import Mediation
import SharedTypes

extension ConfigurationResolver {
    /// `ad_networks` and `ad_units`: networks that exist, their setups decoded by their types;
    /// units whose line items name known networks, their options decoded by them, and suit
    /// them. Every network and unit is checked.
    func mediation(signalAdapters: Set<String>) throws -> MediationConfiguration {
        let networkTypes = BuiltinAdNetworks.registry
        let used = Set(settings.adUnits.values.flatMap { ($0.waterfall + ($0.bidders ?? [])).map(\.network) })
        var setups: [String: DecodedOptions] = [:]
        // A network whose setup failed is reported once: its line items are not judged by it.
        var failedSetups = Set<String>()
        for name in used.union(settings.adNetworks.keys).sorted() {
            switch try problems.collecting({ try setup(of: name, types: networkTypes) }) {
            case .some(.some(let setup)): setups[name] = setup
            case .some(.none): break
            case .none: failedSetups.insert(name)
            }
        }
        var units: [AdUnit] = []
        for (id, unit) in settings.adUnits.sorted(by: { $0.key < $1.key }) {
            let checked = try problems.collecting {
                try self.unit(
                    id, unit, types: networkTypes, signalAdapters: signalAdapters, setups: setups,
                    failedSetups: failedSetups)
            }
            if let checked { units.append(checked) }
        }
        let networks = used.union(settings.adNetworks.keys).sorted().map { name in
            let network = settings.adNetworks[name]
            return AdNetworkConfiguration(
                name: name, setup: setups[name], lazy: network?.lazy ?? false,
                initTimeout: .milliseconds(network?.initTimeoutMilliseconds ?? 10_000))
        }
        return MediationConfiguration(units: units, networks: networks)
    }

    /// A network's setup, decoded by its type: one `ad_networks` lists must be known; one that
    /// only line items name is set up with its defaults (nil when its type is unknown: the line
    /// items say so).
    func setup(of name: String, types: AdNetworkRegistry) throws -> DecodedOptions? {
        let listed = settings.adNetworks[name]
        guard let type = types.type(named: name) else {
            guard listed != nil else { return nil }
            throw fail(
                "ad_networks.\(name)",
                "no ad network named \"\(name)\" (known: \(types.names.joined(separator: ", ")))")
        }
        return try decoding(listed?.setup ?? [:], at: "ad_networks.\(name).setup") {
            json, path throws(StrictJSON.Failures) in
            try type.decodeSetup(json, at: path)
        }
    }

    /// One entry of `ad_units`: each line item's (and bidder's) network known, its options
    /// decoded by it, and the item suiting the network and the unit's format; a bidder's
    /// network bids.
    func unit(
        _ id: String, _ unit: AdUnitSettings, types: AdNetworkRegistry, signalAdapters: Set<String>,
        setups: [String: DecodedOptions] = [:], failedSetups: Set<String> = []
    ) throws -> AdUnit {
        guard !id.isEmpty, id.utf8.count <= 256 else {
            throw fail("ad_units", "an ad unit id must be 1 to 256 bytes")
        }
        var errors: [ConfigurationError] = []
        let currency = unit.currency ?? "USD"
        func lineItems(_ settings: [LineItemSettings], at list: String, bidding: Bool) -> [LineItem] {
            settings.enumerated().map { index, setting in
                var item = LineItem(
                    network: setting.network, parameter: setting.parameter,
                    timeout: .milliseconds(setting.timeoutMilliseconds),
                    consent: setting.consent?.requirement ?? .none, cpm: setting.cpm)
                errors += check(
                    &item, options: setting.options, at: "ad_units.\(id).\(list)[\(index)]", format: unit.format,
                    currency: currency, bidding: bidding, types: types, signalAdapters: signalAdapters,
                    setup: setups[setting.network], failedSetups: failedSetups)
                return item
            }
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
    /// that bids), its `options` as its network decodes them (kept in `item`), or what the
    /// network itself finds.
    private func check(
        _ item: inout LineItem, options: [String: JSONValue], at: String, format: AdFormat, currency: String,
        bidding: Bool, types: AdNetworkRegistry, signalAdapters: Set<String>, setup: DecodedOptions?,
        failedSetups: Set<String>
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
        do {
            item.options = try decoding(options, at: "\(at).options") { json, path throws(StrictJSON.Failures) in
                try type.decodeLineItemOptions(json, at: path)
            }
        } catch {
            return error.errors
        }
        guard !failedSetups.contains(item.network) else { return [] }
        if let problem = type.problem(
            with: item, setup: setup, format: format, currency: currency, signalAdapters: signalAdapters)
        {
            return [fail(at, problem)]
        }
        return []
    }
}
