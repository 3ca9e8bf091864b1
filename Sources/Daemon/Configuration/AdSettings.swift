import Mediation
import SecureSignals
import SharedTypes

/// `ad_units` and `ad_networks` in the configuration file, as written.
@WireKeys
struct AdUnitSettings: Codable, Sendable {
    var format: AdFormat
    var waterfall: [LineItemSettings]
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
        waterfall = try container.decode([LineItemSettings].self, forKey: .waterfall)
        guard !waterfall.isEmpty else {
            throw StrictJSON.Failure(
                path: StrictJSON.keyPath(decoder.codingPath + [CodingKeys.waterfall]), reason: "needs a line item")
        }
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

@WireKeys
struct LineItemSettings: Codable, Sendable {
    var network: String
    var parameter: String
    @WireName("timeout_ms") var timeoutMilliseconds: Int
    var options: AdapterOptions
    var consent: ConsentSettings?

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
