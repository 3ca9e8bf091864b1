import FoundationEssentials
import SharedTypes

/// The device's time zone, read the way the C library reads it rather than through Foundation's
/// `TimeZone` (which needs its internationalization layer): `TZ` when set (empty is UTC; a
/// zone name, with or without a leading `:` or a zoneinfo path; or a POSIX rule such as
/// `EST5EDT,M3.2.0,M11.1.0`, given as it is), else the zone `/etc/localtime` resolves to
/// through every link, else `/etc/timezone`, else `UTC`.
enum LocalTimeZone {
    static func identifier(
        environment: [String: String] = ProcessInfo.processInfo.environment, localtime: String = "/etc/localtime",
        timezoneFile: String = "/etc/timezone"
    ) -> String {
        if let tz = environment["TZ"] {
            if tz.isEmpty { return "UTC" }
            if let name = zoneName(tz.hasPrefix(":") ? String(tz.dropFirst()) : tz) { return name }
        }
        let resolved = URL(fileURLWithPath: localtime).resolvingSymlinksInPath().path
        if resolved != localtime, let name = zoneName(resolved) { return name }
        if let text = try? String(contentsOfFile: timezoneFile, encoding: .utf8),
            let name = zoneName(text.trimmingWhitespace)
        {
            return name
        }
        return "UTC"
    }

    /// The zone `text` names: the part after `zoneinfo/` of a path (less `posix/` or `right/`),
    /// or `text` itself when it is a name or a rule (letters, digits, `/_+-,.:<>`, no `..`, not
    /// another path).
    private static func zoneName(_ text: String) -> String? {
        var name = text
        if let range = text.firstRange(of: "zoneinfo/") {
            name = String(text[range.upperBound...])
            for prefix in ["posix/", "right/"] where name.hasPrefix(prefix) {
                name = String(name.dropFirst(prefix.count))
            }
        }
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains(".."),
            name.unicodeScalars.allSatisfy({
                $0.isASCII
                    && (Character($0).isLetter || Character($0).isNumber || "/_+-,.:<>".unicodeScalars.contains($0))
            })
        else { return nil }
        return name
    }
}
