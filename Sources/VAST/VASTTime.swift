import FoundationEssentials
import SharedTypes

/// Reads VAST times: "HH:MM:SS" or "HH:MM:SS.mmm" (also bare seconds such as "30"), and offsets that may be "NN%".
enum VASTTime {
    /// Milliseconds of a clock time or of bare seconds; nil when the text is neither.
    static func milliseconds(_ text: String) -> Int? {
        let text = text.trimmingWhitespace
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            return seconds(parts[0])
        case 3:
            guard let hours = wholeNumber(parts[0]), let minutes = wholeNumber(parts[1]), minutes < 60,
                let seconds = seconds(parts[2]), seconds < 60_000
            else { return nil }
            return (hours * 3600 + minutes * 60) * 1000 + seconds
        default:
            return nil
        }
    }

    /// An offset: "NN%" or "NN.N%" of the duration, or a time.
    static func offset(_ text: String) -> VASTDocument.Offset? {
        let text = text.trimmingWhitespace
        if text.hasSuffix("%") {
            guard let percent = Double(text.dropLast()), percent >= 0, percent <= 100 else { return nil }
            return .percent(percent)
        }
        return milliseconds(text).map { .milliseconds($0) }
    }

    /// "SS" or "SS.fff" as milliseconds; fractions beyond milliseconds are dropped.
    private static func seconds(_ text: Substring) -> Int? {
        let pieces = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = wholeNumber(pieces[0]) else { return nil }
        var milliseconds = whole * 1000
        if pieces.count == 2 {
            let fraction = pieces[1]
            guard !fraction.isEmpty, fraction.allSatisfy(\.isASCIIDigit) else { return nil }
            let padded = String((fraction + "000").prefix(3))
            milliseconds += Int(padded) ?? 0
        }
        return milliseconds
    }

    private static func wholeNumber(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.allSatisfy(\.isASCIIDigit) else { return nil }
        return Int(text)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool {
        isASCII && isNumber
    }
}
