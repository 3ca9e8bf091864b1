import FoundationEssentials
import SharedTypes

/// Expands the VAST macros a tracker URL may carry before it is pinged: `[ERRORCODE]`, `[TIMESTAMP]`,
/// `[CACHEBUSTING]`; and, in an ad tag (`expand(_:request:now:)`), what the request says of the
/// app, its advertising id and its privacy state. Other macros (`[ADPLAYHEAD]`,
/// `%%CACHEBUSTER%%`, …) are left as they are.
public enum VASTMacros {
    /// `url` with the macros replaced by percent-encoded values: the error code (left as is when nil), the time in
    /// ISO 8601 UTC with milliseconds, and 8 random digits drawn afresh on each call.
    public static func expand(_ url: String, errorCode: VASTErrorCode? = nil, now: Date = Date()) -> String {
        expand(url, code: errorCode?.rawValue, now: now)
    }

    /// The same with any VAST error code, such as one a player reports (405: cannot display the media).
    public static func expand(_ url: String, code: Int?, now: Date = Date()) -> String {
        var expanded = url
        if let code, expanded.contains("[ERRORCODE]") {
            expanded = expanded.replacing("[ERRORCODE]", with: String(code))
        }
        if expanded.contains("[TIMESTAMP]") {
            expanded = expanded.replacing("[TIMESTAMP]", with: percentEncoded(timestamp(now)))
        }
        if expanded.contains("[CACHEBUSTING]") {
            expanded = expanded.replacing("[CACHEBUSTING]", with: cacheBuster())
        }
        return expanded
    }

    /// "2026-11-22T08:08:10.123Z".
    static func timestamp(_ date: Date) -> String {
        date.formatted(
            Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC") ?? .gmt))
    }

    /// 8 random decimal digits, leading zeros kept.
    static func cacheBuster() -> String {
        let number = String(Int.random(in: 0..<100_000_000))
        return String(repeating: "0", count: 8 - number.count) + number
    }

    /// `url` (a VAST request URI: the ad tag) with the request macros of the IAB's list filled from
    /// `values`, each value percent-encoded and a list's values joined by unencoded commas (VAST
    /// 4.3 §6.1), then the generic macros as `expand(_:errorCode:now:)` fills them.
    ///
    /// The macros and their names are the IAB Tech Lab's VAST 4.x list
    /// (github.com/InteractiveAdvertisingBureau/vast, `vast4macros/data/macros-data.json`):
    /// `[IFA]`, `[IFATYPE]`, `[LIMITADTRACKING]`, `[APPBUNDLE]`, `[STOREURL]`, `[REGULATIONS]`,
    /// `[GDPRCONSENT]`, and the Global Privacy Platform's `[GPPSTRING]` and `[GPPSECTIONID]`. A
    /// value not given is `-1` (unknown, would be shared if known) or `-2` (known, withheld by
    /// policy), as VAST 4.3 §6.1 ("Marking Macro Values as Unknown or Unavailable") says.
    public static func expand(_ url: String, request values: RequestValues, now: Date = Date()) -> String {
        var expanded = url
        for (macro, value) in values.macros where expanded.contains(macro) {
            expanded = expanded.replacing(macro, with: value.text)
        }
        return expand(expanded, now: now)
    }

    /// What a VAST request URI's macros are filled with: each value, or why there is none.
    public struct RequestValues: Sendable, Equatable {
        /// One macro's value.
        public enum Value: Sendable, Equatable {
            case text(String)
            /// `Array<T>`: each value encoded, joined by commas (an empty list is empty).
            case list([String])
            /// Not known, and would be shared if it were: `-1`.
            case unknown
            /// Known, but not shared (the app may not have it, the serving is limited): `-2`.
            case withheld

            var text: String {
                switch self {
                case .text(let value): VASTMacros.percentEncoded(value)
                case .list(let values): values.map(VASTMacros.percentEncoded).joined(separator: ",")
                case .unknown: "-1"
                case .withheld: "-2"
                }
            }
        }

        /// `[IFA]`: the advertising id (zeros under limit-ad-tracking).
        public var ifa: Value = .unknown
        /// `[IFATYPE]`: `dpid`, `ppid`, `sspid` or `sessionid`.
        public var ifaType: Value = .unknown
        /// `[LIMITADTRACKING]`: 1 when the user limited ad tracking, else 0.
        public var limitAdTracking: Value = .unknown
        /// `[APPBUNDLE]`: the app's bundle or package name.
        public var appBundle: Value = .unknown
        /// `[STOREURL]`: the app's store URL.
        public var storeURL: Value = .unknown
        /// `[REGULATIONS]`: `gdpr` and `coppa` when they apply.
        public var regulations: Value = .unknown
        /// `[GDPRCONSENT]`: the TCF consent string.
        public var gdprConsent: Value = .unknown
        /// `[GPPSTRING]`: the GPP string.
        public var gppString: Value = .unknown
        /// `[GPPSECTIONID]`: the GPP sections that apply.
        public var gppSectionIDs: Value = .unknown

        public init() {}

        var macros: [(String, Value)] {
            [
                ("[IFA]", ifa), ("[IFATYPE]", ifaType), ("[LIMITADTRACKING]", limitAdTracking),
                ("[APPBUNDLE]", appBundle), ("[STOREURL]", storeURL), ("[REGULATIONS]", regulations),
                ("[GDPRCONSENT]", gdprConsent), ("[GPPSTRING]", gppString), ("[GPPSECTIONID]", gppSectionIDs),
            ]
        }
    }

    /// RFC 3986 unreserved characters stay; everything else (":" of the time) is percent-encoded.
    private static func percentEncoded(_ value: String) -> String {
        PercentEncoding.unreserved(value)
    }
}
