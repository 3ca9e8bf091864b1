/// The OpenRTB 2.6 bid request the `openrtb` network sends: the fields it fills, nothing else.
/// One impression per request; `user.ext.secure_signals` carries the collected envelopes.
struct BidRequest: Encodable, Sendable {
    var id: String
    var imp: [Impression]
    var app: App?
    var device: Device
    var user: User?
    var regs: Regs?
    var source: Source
    var tmax: Int
    var cur: [String]
    /// First-price auction.
    var at = 1
    /// 1: a test load's, not billable (absent otherwise).
    var test: Int?
    /// The ad unit's blocks: advertiser domains, content categories (of taxonomy `cattax`), apps.
    var badv: [String]?
    var bcat: [String]?
    var cattax: Int?
    var bapp: [String]?

    struct Impression: Encodable, Sendable {
        var id = "1"
        var tagid: String
        var bidfloor: Double?
        var bidfloorcur: String?
        var native: NativeObject?
        var video: Video?
        /// Rewarded (2.6): the viewer is rewarded for watching.
        var rwdd: Int?
        /// Interstitial: a rewarded video fills the screen.
        var instl: Int?
        var secure: Int?
    }

    struct NativeObject: Encodable, Sendable {
        /// The Native 1.2 request, as a JSON string (the spec's encoding).
        var request: String
        var ver = "1.2"
        var api: [Int]?
        /// Blocked creative attributes.
        var battr: [Int]?
    }

    struct Video: Encodable, Sendable {
        var mimes: [String]
        /// VAST 2.0 to 4.2, inline and wrapper: 2, 3, 5, 6, 7, 8, 11, 12.
        var protocols = [2, 3, 5, 6, 7, 8, 11, 12]
        var w: Int
        var h: Int
        var linearity = 1
        /// Placement 1: instream; a rewarded video on a device is closest to an interstitial (3).
        var plcmt = 3
        var minduration: Int?
        var maxduration: Int?
        var skip: Int?
        /// Blocked creative attributes.
        var battr: [Int]?
    }

    /// The asking app, as the daemon's registry describes it (a network's setup may override
    /// each field).
    struct App: Encodable, Sendable, Equatable {
        var id: String?
        var name: String?
        var bundle: String?
        var storeurl: String?
        var ver: String?
        /// IAB content categories, of taxonomy `cattax`.
        var cat: [String]?
        var cattax: Int?
        var publisher: Publisher?
    }

    struct Publisher: Encodable, Sendable, Equatable {
        var id: String?
        var name: String?
        var domain: String?
    }

    struct Device: Encodable, Sendable {
        var ua: String?
        var make: String?
        var model: String?
        var os: String?
        var osv: String?
        var hwv: String?
        var language: String?
        /// OpenRTB device type: 3 connected TV, 7 set-top box, ... (from the config).
        var devicetype: Int?
        /// The screen, in pixels.
        var w: Int?
        var h: Int?
        var lmt: Int?
        /// The advertising id, sent only for an app that may have it (zeros under `lmt`).
        var ifa: String?
        var ext: Extension?

        struct Extension: Encodable, Sendable, Equatable {
            /// Where `ifa` comes from: the IAB's `dpid`, `ppid`, `sspid` or `sessionid`.
            var ifaType: String

            enum CodingKeys: String, CodingKey {
                case ifaType = "ifa_type"
            }
        }
    }

    struct User: Encodable, Sendable {
        var consent: String?
        var ext: Extension?

        struct Extension: Encodable, Sendable {
            var secureSignals: [AttachedSignal]?
            /// The selected adapters that gave no signal, so that the integration can be fixed.
            var secureSignalsErrors: [AttachedError]?
            /// Google's Additional Consent string, where Google's and Prebid's stacks read it.
            var consentedProvidersSettings: ConsentedProviders?

            enum CodingKeys: String, CodingKey {
                case secureSignals = "secure_signals"
                case secureSignalsErrors = "secure_signals_errors"
                case consentedProvidersSettings = "ConsentedProvidersSettings"
            }
        }

        /// `user.ext.ConsentedProvidersSettings`: `consented_providers` is the whole Additional
        /// Consent string (`2~1.35~dv.9`), as Prebid.js writes it.
        struct ConsentedProviders: Encodable, Sendable {
            var consentedProviders: String

            enum CodingKeys: String, CodingKey {
                case consentedProviders = "consented_providers"
            }
        }
    }

    /// One sealed signal as a bidder receives it (documented in docs/openrtb.md).
    struct AttachedSignal: Encodable, Sendable, Equatable {
        var source: String
        var adapterVersion: String
        var sdkVersion: String
        var keyID: Int?
        var data: String

        enum CodingKeys: String, CodingKey {
            case source, data
            case adapterVersion = "adapter_version"
            case sdkVersion = "sdk_version"
            case keyID = "key_id"
        }
    }

    /// A selected adapter's failure as a bidder receives it: its versions and the error code,
    /// never the message (which may say more of the device than a bidder should hear).
    struct AttachedError: Encodable, Sendable, Equatable {
        var source: String
        var adapterVersion: String?
        var sdkVersion: String?
        var code: String

        enum CodingKeys: String, CodingKey {
            case source, code
            case adapterVersion = "adapter_version"
            case sdkVersion = "sdk_version"
        }
    }

    struct Regs: Encodable, Sendable {
        var coppa: Int?
        var gdpr: Int?
        var usPrivacy: String?
        var gpp: String?
        var gppSid: [Int]?
        /// The IAB's GPC extension: `{"gpc": "1"}` when the user sent a Global Privacy Control.
        var ext: Extension?

        struct Extension: Encodable, Sendable {
            var gpc: String
        }

        enum CodingKeys: String, CodingKey {
            case coppa, gdpr, gpp, ext
            case usPrivacy = "us_privacy"
            case gppSid = "gpp_sid"
        }
    }

    struct Source: Encodable, Sendable {
        var tid: String
        /// The asking app's supply chain, from its publisher (OpenRTB 2.6 `source.schain`).
        var schain: SupplyChain?
    }

    /// The IAB's SupplyChain object 1.0: the nodes that sell this inventory, in order.
    struct SupplyChain: Encodable, Sendable, Equatable {
        /// 1: the nodes are the whole chain back to the inventory's owner. The registry lists
        /// the publisher's whole chain, so a chain sent is complete.
        var complete = 1
        var ver = "1.0"
        var nodes: [Node]

        struct Node: Encodable, Sendable, Equatable {
            var asi: String
            var sid: String
            var hp: Int
        }
    }
}
