import Foundation

/// The one JSON shape of what the daemon writes and its clients read: snake_case keys spelled
/// from the property names (`adID` is `ad_id`, `formatIDs` is `format_ids`), sorted, slashes
/// unescaped. A `CodingKeys` case is needed only where the wire name is not the property's: it
/// names the wire key in camelCase (`initLatencyMs` is `init_latency_ms`), so that both
/// directions agree. `@Nullable` writes an absent value as an explicit null.
///
/// Input the daemon checks strictly (its configuration, request bodies) is read by its exact
/// keys instead, so that an error names the key as the client wrote it.
public enum WireFormat {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .custom { path in WireKey(snakeCase(path.last?.stringValue ?? "")) }
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .custom { path in WireKey(camelCase(path.last?.stringValue ?? "")) }
        return decoder
    }

    /// Word initialisms written in capitals in Swift names, with their plurals.
    static let initialisms: Set<String> = ["id", "ids", "url", "urls", "uid", "uids", "gid", "gids"]

    /// `initLatencyMs` → `init_latency_ms`, `formatIDs` → `format_ids`; snake_case stays as it is.
    /// (Swift names are ASCII; this runs for every key written, so it works on bytes.)
    public static func snakeCase(_ name: String) -> String {
        let bytes = Array(name.utf8)
        guard bytes.contains(where: isUpper) else { return name }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + 4)
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

    /// `init_latency_ms` → `initLatencyMs`, `format_ids` → `formatIDs`: the inverse of
    /// `snakeCase` for the daemon's own names.
    public static func camelCase(_ key: String) -> String {
        guard key.utf8.contains(UInt8(ascii: "_")) else { return key }
        let words = key.split(separator: "_", omittingEmptySubsequences: false)
        guard words.count > 1, let first = words.first else { return key }
        return String(first)
            + words.dropFirst().map { word -> String in
                let lower = word.lowercased()
                if initialisms.contains(lower) {
                    return lower.hasSuffix("s") ? lower.dropLast().uppercased() + "s" : lower.uppercased()
                }
                return word.prefix(1).uppercased() + word.dropFirst()
            }.joined()
    }

    private static func isUpper(_ byte: UInt8) -> Bool { byte >= 65 && byte <= 90 }
    private static func isLower(_ byte: UInt8) -> Bool { byte >= 97 && byte <= 122 }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
}

/// A key the wire format spelled.
private struct WireKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ stringValue: String) { self.stringValue = stringValue }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// An optional the wire format writes as an explicit `null` when it is absent, where the API
/// promises every key; read back as absent from a null or a missing key.
@propertyWrapper
public struct Nullable<Value> {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }
}

extension Nullable: Sendable where Value: Sendable {}
extension Nullable: Equatable where Value: Equatable {}

extension Nullable: Encodable where Value: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else {
            try container.encodeNil()
        }
    }
}

extension Nullable: Decodable where Value: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}

extension KeyedDecodingContainer {
    /// A `@Nullable` property whose key is missing is absent, as a plain optional's would be.
    public func decode<Value: Decodable>(_ type: Nullable<Value>.Type, forKey key: Key) throws -> Nullable<Value> {
        Nullable(wrappedValue: try decodeIfPresent(Value.self, forKey: key))
    }
}
