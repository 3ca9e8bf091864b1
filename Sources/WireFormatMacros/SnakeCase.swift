/// How a Swift name is spelled on the wire: snake_case, initialisms as words (`adID` is
/// `ad_id`, `formatIDs` is `format_ids`, `URLSession` is `url_session`); snake_case stays as it is.
enum SnakeCase {
    static func spell(_ name: String) -> String {
        let bytes = Array(name.utf8)
        var result: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if isUpper(byte), index > 0, result.last != UInt8(ascii: "_") {
                let previous = bytes[index - 1]
                let next = index + 1 < bytes.count ? bytes[index + 1] : nil
                // A word starts at a capital after a small letter or digit, and at the last
                // capital of a run that a small letter follows (`URLSession`), unless that
                // letter is an initialism's plural `s` (`IDs`).
                let afterSmall = isLower(previous) || isDigit(previous)
                let pluralEnds =
                    next == UInt8(ascii: "s") && (index + 2 == bytes.count || isUpper(bytes[index + 2]))
                let startsWord = isUpper(previous) && next.map(isLower) == true && !pluralEnds
                if afterSmall || startsWord { result.append(UInt8(ascii: "_")) }
            }
            result.append(isUpper(byte) ? byte + 32 : byte)
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static func isUpper(_ byte: UInt8) -> Bool { byte >= 65 && byte <= 90 }
    private static func isLower(_ byte: UInt8) -> Bool { byte >= 97 && byte <= 122 }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
}
