import Mediation
import SecureSignals
import SharedTypes
import Timing

/// `ad_units` and `ad_networks` in the configuration file, as written.
@WireKeys
struct AdUnitSettings: Codable, Sendable {
    var format: AdFormat
    var waterfall: [LineItemSettings]
    /// Line items of networks that bid, asked all at once when a load starts.
    var bidders: [LineItemSettings]?
    /// The least CPM a bid must reach.
    @WireName("floor_cpm") var floorCPM: Double?
    /// The currency of `floor_cpm`, the line items' `cpm` and the bids: ISO 4217, USD by default.
    var currency: String?
    /// The bidders' time.
    var auction: AuctionSettings?
    /// What the unit's ads may not be: asked of bidders and enforced on their bids.
    var blockedAdvertisers: [String]?
    var blockedCategories: [String]?
    var categoryTaxonomy: Int?
    var blockedApps: [String]?
    var blockedAttributes: [Int]?
    var requireAdvertiserDomain: Bool?
    /// How often one app may be shown the unit's ads: each cap, and the least time between two.
    var frequencyCaps: [FrequencyCapSettings]?
    @WireName("pacing_ms") var pacingMilliseconds: Int?
    var maxRetries: Int
    var preload: Bool
    @WireName("expiry_ms") var expiryMilliseconds: Int
    /// `{"callback_url": ...}`: where each reward's signed SSV callback goes.
    var ssv: UnitSSVSettings?

    init(format: AdFormat, waterfall: [LineItemSettings]) {
        self.format = format
        self.waterfall = waterfall
        self.maxRetries = 0
        self.preload = false
        self.expiryMilliseconds = 3_600_000
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let formatName = try container.decode(String.self, forKey: .format)
        guard let format = AdFormat(rawValue: formatName) else {
            throw StrictJSON.Failure(
                path: StrictJSON.keyPath(decoder.codingPath + [CodingKeys.format]),
                reason: "must be \"native\" or \"rewarded\", not \"\(formatName)\"")
        }
        self.format = format
        waterfall = try container.decodeIfPresent([LineItemSettings].self, forKey: .waterfall) ?? []
        bidders = try container.decodeIfPresent([LineItemSettings].self, forKey: .bidders)
        guard !waterfall.isEmpty || !(bidders ?? []).isEmpty else {
            throw StrictJSON.Failure(
                path: StrictJSON.keyPath(decoder.codingPath + [CodingKeys.waterfall]),
                reason: "needs a line item (or the unit a bidder)")
        }
        floorCPM = try container.price(.floorCPM)
        currency = try container.decodeIfPresent(String.self, forKey: .currency)
        if let currency, currency.count != 3 || !currency.allSatisfy({ $0.isASCII && $0.isUppercase }) {
            throw StrictJSON.Failure(
                path: StrictJSON.keyPath(decoder.codingPath + [CodingKeys.currency]),
                reason: "must be an ISO 4217 code such as USD, not \"\(currency)\"")
        }
        auction = try container.decodeIfPresent(AuctionSettings.self, forKey: .auction)
        func names(_ key: CodingKeys, _ what: String) throws -> [String]? {
            let names = try container.decodeIfPresent([String].self, forKey: key)
            if let names, names.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
                throw StrictJSON.Failure(
                    path: StrictJSON.keyPath(decoder.codingPath + [key]), reason: "must list \(what), none empty")
            }
            return names
        }
        blockedAdvertisers = try names(.blockedAdvertisers, "advertiser domains")
        if let bad = blockedAdvertisers?.first(where: { $0.contains(where: { "/:*@ ".contains($0) }) }) {
            throw StrictJSON.Failure(
                path: StrictJSON.keyPath(decoder.codingPath + [CodingKeys.blockedAdvertisers]),
                reason: "must list bare domains such as example.com (which also blocks its subdomains), not \"\(bad)\"")
        }
        blockedCategories = try names(.blockedCategories, "content category ids")
        blockedApps = try names(.blockedApps, "app bundles or store ids")
        categoryTaxonomy = try container.wholeNumber(.categoryTaxonomy)
        if let categoryTaxonomy, !(1...1000).contains(categoryTaxonomy) {
            throw StrictJSON.Failure(
                path: StrictJSON.keyPath(decoder.codingPath + [CodingKeys.categoryTaxonomy]),
                reason: "must be an OpenRTB cattax, 1 to 1000, not \(categoryTaxonomy)")
        }
        blockedAttributes = try container.decodeIfPresent([Int].self, forKey: .blockedAttributes)
        if let blockedAttributes, blockedAttributes.contains(where: { !(1...255).contains($0) }) {
            throw StrictJSON.Failure(
                path: StrictJSON.keyPath(decoder.codingPath + [CodingKeys.blockedAttributes]),
                reason: "must list OpenRTB creative attribute ids (list 5.3), 1 to 255")
        }
        requireAdvertiserDomain = try container.decodeIfPresent(Bool.self, forKey: .requireAdvertiserDomain)
        frequencyCaps = try container.decodeIfPresent([FrequencyCapSettings].self, forKey: .frequencyCaps)
        pacingMilliseconds = try container.positive(.pacingMilliseconds, max: FrequencyCapSettings.longestWindow)
        maxRetries = try container.wholeNumber(.maxRetries) ?? 0
        guard (0...100).contains(maxRetries) else {
            throw StrictJSON.Failure(
                path: StrictJSON.keyPath(decoder.codingPath + [CodingKeys.maxRetries]),
                reason: "must be between 0 and 100, not \(maxRetries)")
        }
        preload = try container.decodeIfPresent(Bool.self, forKey: .preload) ?? false
        expiryMilliseconds = try container.positive(.expiryMilliseconds, default: 3_600_000, max: 86_400_000)
        ssv = try container.decodeIfPresent(UnitSSVSettings.self, forKey: .ssv)
    }
}

/// An ad unit's `ssv`.
@WireKeys
struct UnitSSVSettings: Codable, Sendable {
    @WireName("callback_url") var callbackURL: String

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        callbackURL = try container.decode(String.self, forKey: .callbackURL)
    }
}

/// One of an ad unit's `frequency_caps`: at most `impressions` per app in any `per_ms`.
@WireKeys
struct FrequencyCapSettings: Codable, Sendable {
    /// A year: the longest window (and pacing) a unit may have.
    static let longestWindow = 366 * 86_400_000

    var impressions: Int
    @WireName("per_ms") var perMilliseconds: Int

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Absent or null: required.
        func required(_ key: CodingKeys, max: Int) throws -> Int {
            guard let value = try container.positive(key, max: max) else {
                throw DecodingError.keyNotFound(
                    key, DecodingError.Context(codingPath: decoder.codingPath, debugDescription: ""))
            }
            return value
        }
        impressions = try required(.impressions, max: 1_000_000)
        perMilliseconds = try required(.perMilliseconds, max: Self.longestWindow)
    }

    var cap: FrequencyCapping.Cap {
        FrequencyCapping.Cap(impressions: impressions, per: .milliseconds(perMilliseconds))
    }
}

/// An ad unit's `auction`: the bidders' time, as Prebid Server adjusts `tmax`.
@WireKeys
struct AuctionSettings: Codable, Sendable {
    /// From the start of the load to the end of the bidding.
    @WireName("timeout_ms") var timeoutMilliseconds: Int
    /// Kept back from the bidders for the daemon's own work.
    @WireName("processing_ms") var processingMilliseconds: Int
    /// Taken off each bidder's `tmax` for the network's latency.
    @WireName("network_buffer_ms") var networkBufferMilliseconds: Int

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        timeoutMilliseconds = try container.positive(.timeoutMilliseconds, default: 1000, max: 60_000)
        processingMilliseconds = try container.wholeNumber(.processingMilliseconds) ?? 50
        networkBufferMilliseconds = try container.wholeNumber(.networkBufferMilliseconds) ?? 40
        let least = Int(milliseconds(AuctionTiming.minimumBidderTime))
        guard processingMilliseconds >= 0, networkBufferMilliseconds >= 0,
            processingMilliseconds + networkBufferMilliseconds + least <= timeoutMilliseconds
        else {
            throw StrictJSON.Failure(
                path: StrictJSON.keyPath(decoder.codingPath),
                reason: "processing_ms and network_buffer_ms must not be negative, and must leave the bidders "
                    + "\(least) ms at least within timeout_ms (a tmax of 10 ms, and 20 to read the answer)")
        }
    }

    var timing: AuctionTiming {
        AuctionTiming(
            timeout: .milliseconds(timeoutMilliseconds), processing: .milliseconds(processingMilliseconds),
            networkBuffer: .milliseconds(networkBufferMilliseconds))
    }
}

@WireKeys
struct LineItemSettings: Codable, Sendable {
    var network: String
    var parameter: String
    @WireName("timeout_ms") var timeoutMilliseconds: Int
    var options: AdapterOptions
    var consent: ConsentSettings?
    /// What the line item is worth: where bids are slotted against it.
    var cpm: Double?

    init(network: String, parameter: String) {
        self.network = network
        self.parameter = parameter
        self.timeoutMilliseconds = 2000
        self.options = AdapterOptions()
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        network = try container.decode(String.self, forKey: .network)
        parameter = try container.decodeIfPresent(String.self, forKey: .parameter) ?? ""
        timeoutMilliseconds = try container.positive(.timeoutMilliseconds, default: 2000, max: 60_000)
        options = try container.decodeIfPresent(AdapterOptions.self, forKey: .options) ?? AdapterOptions()
        consent = try container.decodeIfPresent(ConsentSettings.self, forKey: .consent)
        cpm = try container.price(.cpm)
    }
}

extension KeyedDecodingContainer {
    /// A CPM: a number from 0 to a million, if present.
    func price(_ key: Key) throws -> Double? {
        let path = StrictJSON.keyPath(codingPath + [key])
        let value: Double?
        do {
            value = try decodeIfPresent(Double.self, forKey: key)
        } catch DecodingError.typeMismatch {
            throw StrictJSON.Failure(path: path, reason: "must be a number (a CPM)")
        }
        if let value, !AdValue.isPlausible(cpm: value) {
            throw StrictJSON.Failure(path: path, reason: "must be a CPM from 0 to 1000000, not \(value)")
        }
        return value
    }
}

@WireKeys
struct AdNetworkSettings: Codable, Sendable {
    var lazy: Bool
    @WireName("init_timeout_ms") var initTimeoutMilliseconds: Int
    var setup: AdapterOptions

    init(lazy: Bool = false, initTimeoutMilliseconds: Int = 10_000, setup: AdapterOptions = AdapterOptions()) {
        self.lazy = lazy
        self.initTimeoutMilliseconds = initTimeoutMilliseconds
        self.setup = setup
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        lazy = try container.decodeIfPresent(Bool.self, forKey: .lazy) ?? false
        initTimeoutMilliseconds = try container.positive(.initTimeoutMilliseconds, default: 10_000, max: 600_000)
        setup = try container.decodeIfPresent(AdapterOptions.self, forKey: .setup) ?? AdapterOptions()
    }
}

/// The mediation part of a resolved configuration.
public struct MediationConfiguration: Sendable {
    public var units: [AdUnit]
    public var networks: [AdNetworkConfiguration]

    /// The seeds' test ad units on the `test` network: what the embedded default serves.
    static var testUnits: [String: AdUnitSettings] {
        var rewarded = AdUnitSettings(
            format: .rewarded, waterfall: [LineItemSettings(network: "test", parameter: "/6499/example/rewarded")])
        rewarded.preload = true
        return [
            "/6499/example/rewarded": rewarded,
            "/21775744923/example/native": AdUnitSettings(
                format: .native,
                waterfall: [LineItemSettings(network: "test", parameter: "/21775744923/example/native")]),
            "/21775744923/example/native-backfill": AdUnitSettings(
                format: .native,
                waterfall: [LineItemSettings(network: "test", parameter: "/21775744923/example/native-backfill")]),
        ]
    }
}
