/// Why a consent string was refused: which string (`tcf_consent`, `gpp`, `us_privacy`,
/// `addtl_consent`), which section or segment of it, and what was wrong, e.g. "gpp: section
/// usnat: ends at bit 60, needs 66". The message never repeats the string itself: consent
/// strings stay out of logs.
public struct ConsentStringError: Error, Equatable, CustomStringConvertible {
    public enum Source: String, Sendable {
        case tcfConsent = "tcf_consent"
        case gpp
        case usPrivacy = "us_privacy"
        case addtlConsent = "addtl_consent"
    }

    public var source: Source
    /// The section or segment, when the fault is inside one ("usnat", "core segment").
    public var section: String?
    public var reason: String

    public init(_ source: Source, section: String? = nil, _ reason: String) {
        self.source = source
        self.section = section
        self.reason = reason
    }

    public var description: String {
        [source.rawValue, section.map { "section \($0)" }, reason].compactMap { $0 }.joined(separator: ": ")
    }
}

/// A fault found while reading bits, before it is known which string it belongs to.
struct BitsError: Error, Equatable {
    var reason: String
}
