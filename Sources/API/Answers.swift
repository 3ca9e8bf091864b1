import SharedTypes

// The small answers of the socket API, defined here for the daemon to give and clients to
// read. (Ads, signals, health and recipients answer with SharedTypes' value types:
// `MediatedAd`, `LifecycleOutcome`, `AdUnitStatus`, `CollectionResult`, `HealthReport`...)

/// `GET /v1/adapters`: every signal adapter's status, in configuration order.
@WireKeys
@MemberwiseInit
public struct AdapterList: Codable, Sendable, Equatable {
    public var adapters: [AdapterStatus]
}

/// `POST /v1/adapters/{name}/reset`: which adapter was reset.
@WireKeys
@MemberwiseInit
public struct AdapterReset: Codable, Sendable, Equatable {
    public var adapter: String
    /// Always `done`: a reset that failed is an error answer.
    public var reset: String = "done"
}

/// `GET`, `PUT` and `DELETE /v1/privacy` (the calling app's own state) and `/v1/device/privacy`
/// (the device's): what `PUT` takes back.
@WireKeys
@MemberwiseInit
public struct PrivacyAnswer: Codable, Sendable, Equatable {
    /// Null while none is set: an app without one stands under the device's; without the
    /// device's, there is no consent.
    @Nullable public var privacy: PrivacyState?
}

/// `GET /v1/rewards`: the calling app's rewards in the state asked for.
@WireKeys
@MemberwiseInit
public struct RewardList: Codable, Sendable, Equatable {
    public var rewards: [EarnedReward]
}

/// `POST /v1/rewards/{transaction_id}/claim`: the reward, now claimed.
@WireKeys
@MemberwiseInit
public struct ClaimedReward: Codable, Sendable, Equatable {
    public var reward: EarnedReward
}

/// `GET /v1/apps`: every app the daemon knows (registered, seen, or with a privacy state of its
/// own), for an app with `inspect`.
@WireKeys
@MemberwiseInit
public struct AppList: Codable, Sendable, Equatable {
    public var apps: [AppStatus]
}

/// One app as `GET /v1/apps` shows it.
@WireKeys
@MemberwiseInit
public struct AppStatus: Codable, Sendable, Equatable {
    public var id: String
    /// Whether the registry lists it (else an anonymous or operator app, `uid:N`).
    public var registered: Bool
    /// What it may do (empty for an app known only by its privacy state).
    public var capabilities: [AppCapability]
    /// The apps it hosts, when it is a broker.
    public var hosts: [String] = []
    /// Its requests being answered and event streams open now: connected while either is not 0.
    public var requestsInFlight: Int
    public var eventStreams: Int
    /// How long ago its last request came (ms); null when none came since the daemon started.
    @Nullable @WireName("last_seen_ms_ago") public var lastSeenAgo: Int64?
    /// Its own privacy state (null: the device's stands for it).
    @Nullable public var privacy: PrivacyState?
}

/// `GET /v1/ad_units`: each ad unit as the calling app sees it, by id.
@WireKeys
@MemberwiseInit
public struct AdUnitList: Codable, Sendable, Equatable {
    public var adUnits: [AdUnitStatus]
}

/// Every error answer: `{"error": {"code", "message"}}`, and what a failed load adds beside it.
/// The daemon writes it (`APIFailure`); clients read it.
@WireKeys
public struct APIErrorAnswer: Codable, Sendable, Equatable {
    public var error: Detail
    /// A failed load's waterfall, when it tried any network.
    public var responseInfo: ResponseInfo?
    /// A capped load's wait.
    @WireName("retry_after_ms") public var retryAfterMilliseconds: Int64?

    @WireKeys
    public struct Detail: Codable, Sendable, Equatable {
        /// An `APIErrorCode`'s string, kept as a string: a newer daemon may answer a code this
        /// client does not know.
        public var code: String
        public var message: String
    }
}

extension APIErrorAnswer {
    /// Read leniently beside its error: a waterfall or wait this client cannot read (a newer
    /// daemon's outcome or loss reason) is left out, never the code and message with it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        error = try container.decode(Detail.self, forKey: .error)
        responseInfo = try? container.decodeIfPresent(ResponseInfo.self, forKey: .responseInfo)
        retryAfterMilliseconds = try? container.decodeIfPresent(Int64.self, forKey: .retryAfterMilliseconds)
    }
}

/// `GET /v1/privacy/decisions`: what the calling app's privacy state in force lets each signal
/// adapter, and each ad unit's line items and bidders, do now, with the reason of every denial
/// and of every serving mode below personalised: a consent problem seen before a load fails.
@WireKeys
@MemberwiseInit
public struct PrivacyDecisions: Codable, Sendable, Equatable {
    public var app: String
    /// Whose state decides: `app` (its own, the device's filling what it leaves unset),
    /// `device` (it set none), or `none` (no state: only what needs no consent runs).
    public var stateInForce: String
    /// Every signal adapter, in configuration order.
    public var adapters: [AdapterDecision]
    /// Every ad unit, by id.
    public var adUnits: [AdUnitDecisions]
}

/// Whether something may run, and if not why (the message its `consent_missing` would carry).
@WireKeys
@MemberwiseInit
public struct ConsentVerdict: Codable, Sendable, Equatable {
    public var allowed: Bool
    @Nullable public var reason: String?
}

/// One signal adapter's decision.
@WireKeys
@MemberwiseInit
public struct AdapterDecision: Codable, Sendable, Equatable {
    public var adapter: String
    public var allowed: Bool
    @Nullable public var reason: String?
}

/// One ad unit's decisions: whether its loads carry the advertising id, and each line item of
/// its waterfall and each bidder of its auction, in configuration order.
@WireKeys
@MemberwiseInit
public struct AdUnitDecisions: Codable, Sendable, Equatable {
    public var adUnit: String
    @WireName("advertising_id") public var advertisingID: ConsentVerdict
    public var lineItems: [LineItemDecision]
    public var bidders: [LineItemDecision]
}

/// One line item's or bidder's decision, and the serving mode of its requests (with why they
/// are not personalised, when they are not).
@WireKeys
@MemberwiseInit
public struct LineItemDecision: Codable, Sendable, Equatable {
    public var network: String
    /// As answers show it: a URL without its query.
    public var parameter: String
    public var allowed: Bool
    @Nullable public var reason: String?
    public var servingMode: ServingMode
    @Nullable public var servingModeReason: String?
}

/// `GET /v1/inspect/loads`: the traces kept, newest first.
@WireKeys
@MemberwiseInit
public struct LoadTraceList: Codable, Sendable, Equatable {
    public var loads: [LoadTrace]
}

/// `GET /v1/inspect/signals`: the traces kept, newest first.
@WireKeys
@MemberwiseInit
public struct SignalsTraceList: Codable, Sendable, Equatable {
    public var signals: [SignalsTrace]
}

/// The loopback inspector page's `GET /inspect/overview`: what the daemon runs, each part with
/// its state and versions, and how many traces it keeps.
@WireKeys
@MemberwiseInit
public struct InspectorOverview: Codable, Sendable, Equatable {
    public var version: String
    public var adUnits: [AdUnitStatus]
    public var adapters: [AdapterStatus]
    public var networks: [AdapterStatus]
    public var maxTraces: Int
}
