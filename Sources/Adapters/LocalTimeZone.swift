import Foundation

/// The device's time zone as an IANA name, read the way the C library reads it, without
/// Foundation's internationalization layer: `TZ` (a name, with or without a leading `:`), else
/// the zone `/etc/localtime` links to, else `/etc/timezone`, else `UTC`.
enum LocalTimeZone {
    static func identifier(
        environment: [String: String] = ProcessInfo.processInfo.environment, localtime: String = "/etc/localtime",
        timezoneFile: String = "/etc/timezone"
    ) -> String {
        if let zone = environment["TZ"].map({ $0.hasPrefix(":") ? String($0.dropFirst()) : $0 }),
            let name = ianaName(zone)
        {
            return name
        }
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: localtime),
            let range = target.range(of: "zoneinfo/"), let name = ianaName(String(target[range.upperBound...]))
        {
            return name
        }
        if let text = try? String(contentsOfFile: timezoneFile, encoding: .utf8),
            let name = ianaName(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            return name
        }
        return "UTC"
    }

    /// `text` if it reads as a zone name (`Europe/Paris`, `UTC`): letters, digits and `/_+-`,
    /// not a path (a `TZ` of `/usr/share/zoneinfo/X` names X).
    private static func ianaName(_ text: String) -> String? {
        let name = text.range(of: "zoneinfo/").map { String(text[$0.upperBound...]) } ?? text
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains(".."),
            name.unicodeScalars.allSatisfy({
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "/_+-".unicodeScalars.contains($0))
            })
        else { return nil }
        return name
    }
}
