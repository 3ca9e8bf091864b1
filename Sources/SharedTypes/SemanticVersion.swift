/// A version as `major.minor.patch`, the form every signal reports for its adapter and SDK.
public struct SemanticVersion: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    public var major: Int
    public var minor: Int
    public var patch: Int

    public init(_ major: Int, _ minor: Int, _ patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Reads the leading `major[.minor[.patch]]` of a version string such as "6.1.0-13-amd64"
    /// or "12"; nil when it does not start with a number.
    public init?(parsing text: String) {
        var numbers: [Int] = []
        for part in text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false) {
            let digits = part.prefix { $0.isASCII && $0.isNumber }
            guard let number = Int(digits) else { break }
            numbers.append(number)
            if digits.count != part.count { break }
        }
        guard !numbers.isEmpty else { return nil }
        numbers += [0, 0]
        self.init(numbers[0], numbers[1], numbers[2])
    }

    public var description: String { "\(major).\(minor).\(patch)" }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let version = SemanticVersion(parsing: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not a version: \(text)"))
        }
        self = version
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
