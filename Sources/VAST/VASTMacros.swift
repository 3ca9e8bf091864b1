import Foundation

/// Expands the VAST macros a tracker URL may carry before it is pinged: `[ERRORCODE]`, `[TIMESTAMP]`,
/// `[CACHEBUSTING]`. Other macros (`[ADPLAYHEAD]`, `%%CACHEBUSTER%%`, …) are left as they are.
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
            expanded = expanded.replacingOccurrences(of: "[ERRORCODE]", with: String(code))
        }
        if expanded.contains("[TIMESTAMP]") {
            expanded = expanded.replacingOccurrences(of: "[TIMESTAMP]", with: percentEncoded(timestamp(now)))
        }
        if expanded.contains("[CACHEBUSTING]") {
            expanded = expanded.replacingOccurrences(of: "[CACHEBUSTING]", with: cacheBuster())
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

    /// RFC 3986 unreserved characters stay; everything else (":" of the time) is percent-encoded.
    private static func percentEncoded(_ value: String) -> String {
        var unreserved = CharacterSet.alphanumerics
        unreserved.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }
}
