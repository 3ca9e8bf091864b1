import FoundationEssentials
import SharedTypes

/// How long a key set fetched from a recipient's `key_url` is fresh: its Cache-Control
/// `max-age` less its `Age` (RFC 9111 §5.2.2.1, §5.1), else the recipient's default, clamped to
/// between 5 minutes and 7 days, so that no server can make a device fetch in a loop or keep a
/// key past a week.
public enum KeySetLifetime {
    public static let shortest = Duration.seconds(300)
    public static let longest = Duration.seconds(7 * 86_400)

    /// The lifetime the headers give (`cacheControl`, `age`: the header values, nil when
    /// absent). `no-store` and `no-cache` count as 0, clamped up to the shortest.
    public static func of(cacheControl: String?, age: String?, default fallback: Duration) -> Duration {
        let seconds = maxAge(cacheControl).map { $0 - (age.flatMap(deltaSeconds) ?? 0) }
        let lifetime = seconds.map { Duration.seconds(max(0, $0)) } ?? fallback
        return min(max(lifetime, shortest), longest)
    }

    /// The `max-age` of a Cache-Control value; 0 for `no-store` or `no-cache`; nil when it
    /// says neither (or says max-age twice, which RFC 9111 makes invalid).
    static func maxAge(_ value: String?) -> Int? {
        guard let value else { return nil }
        var found: [Int] = []
        for directive in value.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map {
                $0.trimmingWhitespace
            }
            switch parts.first?.lowercased() {
            case "no-store", "no-cache": return 0
            case "max-age":
                guard parts.count == 2 else { return nil }
                let quoted = parts[1].hasPrefix("\"") && parts[1].hasSuffix("\"") && parts[1].count >= 2
                guard let seconds = deltaSeconds(quoted ? String(parts[1].dropFirst().dropLast()) : parts[1])
                else { return nil }
                found.append(seconds)
            default: continue
            }
        }
        return found.count == 1 ? found[0] : nil
    }

    /// A delta-seconds value (digits only); a number too large for an Int saturates.
    static func deltaSeconds(_ text: String) -> Int? {
        guard !text.isEmpty, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) else { return nil }
        return Int(text) ?? Int.max
    }
}
