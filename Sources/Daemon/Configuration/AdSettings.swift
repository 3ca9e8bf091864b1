import Consent
import Mediation
import SecureSignals
import SharedTypes
import Timing

/// `ad_units` and `ad_networks` in the configuration file, as written.
@Settings
struct AdUnitSettings: Codable, Sendable {
    var format: AdFormat
    var waterfall: [LineItemSettings] = []
    /// Line items of networks that bid, asked all at once when a load starts.
    var bidders: [LineItemSettings]?
    /// The least CPM a bid must reach.
    @WireName("floor_cpm") @Bounds(0...1_000_000, "a CPM") var floorCPM: Double?
    /// The currency of `floor_cpm`, the line items' `cpm` and the bids: ISO 4217, USD by default.
    var currency: String?
    /// The bidders' time.
    var auction: AuctionSettings?
    /// What the unit's ads may not be: asked of bidders and enforced on their bids.
    var blockedAdvertisers: [String]?
    var blockedCategories: [String]?
    @Bounds(1...1000, "an OpenRTB cattax") var categoryTaxonomy: Int?
    var blockedApps: [String]?
    var blockedAttributes: [Int]?
    var requireAdvertiserDomain: Bool?
    /// How often one app may be shown the unit's ads: each cap, and the least time between two.
    var frequencyCaps: [FrequencyCapSettings]?
    @WireName("pacing_ms") @Bounds(1...FrequencyCapSettings.longestWindow) var pacingMilliseconds: Int?
    @Bounds(0...100) var maxRetries = 0
    var preload = false
    @WireName("expiry_ms") @Bounds(1...86_400_000) var expiryMilliseconds = 3_600_000
    /// `{"callback_url": ...}`: where each reward's signed SSV callback goes.
    var ssv: UnitSSVSettings?

    init(format: AdFormat, waterfall: [LineItemSettings]) {
        self.format = format
        self.waterfall = waterfall
    }

    func validate(at codingPath: [any CodingKey]) throws {
        func failure(_ key: CodingKeys, _ reason: String) -> StrictJSON.Failure {
            StrictJSON.Failure(at: codingPath, key, reason)
        }
        guard !waterfall.isEmpty || !(bidders ?? []).isEmpty else {
            throw failure(.waterfall, "needs a line item (or the unit a bidder)")
        }
        if let currency, currency.count != 3 || !currency.allSatisfy({ $0.isASCII && $0.isUppercase }) {
            throw failure(.currency, "must be an ISO 4217 code such as USD, not \"\(currency)\"")
        }
        for (key, names, what) in [
            (CodingKeys.blockedAdvertisers, blockedAdvertisers, "advertiser domains"),
            (.blockedCategories, blockedCategories, "content category ids"),
            (.blockedApps, blockedApps, "app bundles or store ids"),
        ] where names?.contains(where: { $0.trimmingWhitespace.isEmpty }) == true {
            throw failure(key, "must list \(what), none empty")
        }
        if let bad = blockedAdvertisers?.first(where: { $0.contains(where: { "/:*@ ".contains($0) }) }) {
            throw failure(
                .blockedAdvertisers,
                "must list bare domains such as example.com (which also blocks its subdomains), not \"\(bad)\"")
        }
        if let blockedAttributes, blockedAttributes.contains(where: { !(1...255).contains($0) }) {
            throw failure(.blockedAttributes, "must list OpenRTB creative attribute ids (list 5.3), 1 to 255")
        }
    }
}

/// An ad unit's `ssv`.
@Settings
struct UnitSSVSettings: Codable, Sendable {
    @WireName("callback_url") var callbackURL: String
}

/// One of an ad unit's `frequency_caps`: at most `impressions` per app in any `per_ms`.
@Settings
struct FrequencyCapSettings: Codable, Sendable {
    /// A year: the longest window (and pacing) a unit may have.
    static let longestWindow = 366 * 86_400_000

    @Bounds(1...1_000_000) var impressions: Int
    @WireName("per_ms") @Bounds(1...Self.longestWindow) var perMilliseconds: Int

    var cap: FrequencyCapping.Cap {
        FrequencyCapping.Cap(impressions: impressions, per: .milliseconds(perMilliseconds))
    }
}

/// An ad unit's `auction`: the bidders' time, as Prebid Server adjusts `tmax`.
@Settings
struct AuctionSettings: Codable, Sendable {
    /// From the start of the load to the end of the bidding.
    @WireName("timeout_ms") @Bounds(1...60_000) var timeoutMilliseconds = 1000
    /// Kept back from the bidders for the daemon's own work.
    @WireName("processing_ms") var processingMilliseconds = 50
    /// Taken off each bidder's `tmax` for the network's latency.
    @WireName("network_buffer_ms") var networkBufferMilliseconds = 40

    func validate(at codingPath: [any CodingKey]) throws {
        let least = Int(milliseconds(AuctionTiming.minimumBidderTime))
        guard processingMilliseconds >= 0, networkBufferMilliseconds >= 0,
            processingMilliseconds + networkBufferMilliseconds + least <= timeoutMilliseconds
        else {
            throw StrictJSON.Failure(
                at: codingPath,
                "processing_ms and network_buffer_ms must not be negative, and must leave the bidders "
                    + "\(least) ms at least within timeout_ms (a tmax of 10 ms, and 20 to read the answer)")
        }
    }

    var timing: AuctionTiming {
        AuctionTiming(
            timeout: .milliseconds(timeoutMilliseconds), processing: .milliseconds(processingMilliseconds),
            networkBuffer: .milliseconds(networkBufferMilliseconds))
    }
}

@Settings
struct LineItemSettings: Codable, Sendable {
    var network: String
    var parameter = ""
    @WireName("timeout_ms") @Bounds(1...60_000) var timeoutMilliseconds = 2000
    /// Decoded by its network's type (the resolver).
    var options: [String: JSONValue] = [:]
    var consent: ConsentSettings?
    /// What the line item is worth: where bids are slotted against it.
    @Bounds(0...1_000_000, "a CPM") var cpm: Double?

    init(network: String, parameter: String) {
        self.network = network
        self.parameter = parameter
    }
}

@Settings
struct AdNetworkSettings: Codable, Sendable {
    var lazy = false
    @WireName("init_timeout_ms") @Bounds(1...600_000)
    var initTimeoutMilliseconds = Int(AdNetworkConfiguration.standardInitTimeout.wholeMilliseconds)
    /// Decoded by the network's type (the resolver).
    var setup: [String: JSONValue] = [:]
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
