import FoundationEssentials

/// The one JSON shape of what the daemon writes and its clients read: snake_case keys spelled
/// from the property names when the code compiles (`@WireKeys`: `adID` is `ad_id`, `formatIDs`
/// is `format_ids`; `@WireName` where the wire name is not the property's), sorted, slashes
/// unescaped; `@Nullable` writes an absent value as an explicit null.
///
/// Input the daemon checks strictly (its configuration, request bodies) is spelled the same
/// way: the generated keys are also the list of keys it accepts (`CaseIterable`), so an unknown
/// key is refused and an error names a key as the client wrote it.
public enum WireFormat {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder { JSONDecoder() }
}

/// Gives a wire type the `CodingKeys` of the wire format: each stored property's name in
/// snake_case, or the name its `@WireName` gives.
@attached(member, names: named(CodingKeys))
public macro WireKeys() = #externalMacro(module: "WireFormatMacros", type: "WireKeysMacro")

/// The wire name of a property whose name in snake_case is not it (`uptimeSeconds` is `uptime_s`).
@attached(peer)
public macro WireName(_ name: String) = #externalMacro(module: "WireFormatMacros", type: "MarkerMacro")

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
