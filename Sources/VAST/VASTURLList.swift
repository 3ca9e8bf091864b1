import FoundationEssentials
import SharedTypes

/// The URL clean-up every list of tracker URLs gets: trimmed, empty ones dropped, each kept once in first-seen order.
enum VASTURLList {
    /// A URL as written in the document, trimmed of whitespace and newlines (CDATA padding);
    /// a protocol-relative `//host/x` becomes `https://host/x`. Nil when nothing is left.
    static func clean(_ raw: String) -> String? {
        let trimmed = raw.trimmingWhitespace
        guard !trimmed.isEmpty else { return nil }
        if trimmed.hasPrefix("//") {
            return "https:" + trimmed
        }
        return trimmed
    }

    /// `list` followed by the URLs of `more` it does not hold yet.
    static func merged(_ list: [String], _ more: [String]) -> [String] {
        var result = list
        for url in more where !result.contains(url) {
            result.append(url)
        }
        return result
    }

    /// A URL as a message shows it: without its query and fragment, where ad servers put ids
    /// and keys (messages reach apps in `response_info`).
    static func shown(_ url: String) -> String {
        String(url.prefix { $0 != "?" && $0 != "#" })
    }

    /// Each URL once, in first-seen order.
    static func unique(_ urls: [String]) -> [String] {
        merged([], urls)
    }
}
