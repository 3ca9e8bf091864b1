/// A configuration section declared once: the properties, their defaults and `@Bounds`.
/// `init(from:)` is generated from them; `validate(at:)` adds what one key cannot say alone.
@attached(member, names: named(CodingKeys))
@attached(extension, conformances: StrictSettings, names: named(init(from:)))
public macro Settings() = #externalMacro(module: "WireFormatMacros", type: "SettingsMacro")

/// The values a `@Settings` property may take, and optionally what it is ("a TCF policy
/// version"), for the error that refuses another.
@attached(peer)
public macro Bounds<Bound>(_ range: ClosedRange<Bound>, _ what: String? = nil) =
    #externalMacro(module: "WireFormatMacros", type: "MarkerMacro")

/// What `@Settings` gives a section.
public protocol StrictSettings: Decodable {
    /// Rules across keys, judged once every key is read; throws a `StrictJSON.Failure` naming
    /// the key (`StrictJSON.Failure(at: codingPath, CodingKeys.key, "...")`).
    func validate(at codingPath: [any CodingKey]) throws
}

extension StrictSettings {
    public func validate(at codingPath: [any CodingKey]) throws {}
}

extension KeyedDecodingContainer {
    /// A setting, or `value` when absent.
    public func setting<T: Decodable>(_ key: Key, default value: T) throws -> T {
        try StrictJSON.collecting(fallback: value) { try decodeIfPresent(T.self, forKey: key) ?? value }
    }

    /// A whole number in `bounds`, or `value` when absent.
    public func setting(_ key: Key, default value: Int, in bounds: ClosedRange<Int>? = nil, as what: String? = nil)
        throws -> Int
    {
        try StrictJSON.collecting(fallback: value) { try number(key, in: bounds, as: what) ?? value }
    }

    /// A whole number in `bounds`, or `value` when absent.
    public func setting(_ key: Key, default value: Int?, in bounds: ClosedRange<Int>? = nil, as what: String? = nil)
        throws -> Int?
    {
        try StrictJSON.collecting(fallback: value) { try number(key, in: bounds, as: what) ?? value }
    }

    /// A number in `bounds`, or `value` when absent.
    public func setting(
        _ key: Key, default value: Double?, in bounds: ClosedRange<Double>? = nil, as what: String? = nil
    ) throws -> Double? {
        try StrictJSON.collecting(fallback: value) {
            let read: Double?
            do {
                read = try decodeIfPresent(Double.self, forKey: key)
            } catch DecodingError.typeMismatch {
                throw StrictJSON.Failure(
                    at: codingPath, key, "must be a number" + (what.map { " (\($0))" } ?? ""))
            }
            guard let read else { return value }
            try check(read, key, in: bounds, as: what, show: \.formatted)
            return read
        }
    }

    /// Whole numbers, each in `bounds`, or `value` when absent.
    public func setting(_ key: Key, default value: [Int], in bounds: ClosedRange<Int>, as what: String? = nil)
        throws -> [Int]
    {
        try StrictJSON.collecting(fallback: value) {
            guard let read = try decodeIfPresent([Int].self, forKey: key) else { return value }
            if let bad = read.first(where: { !bounds.contains($0) }) {
                let range = "(\(bounds.lowerBound)-\(bounds.upperBound))"
                throw StrictJSON.Failure(at: codingPath, key, "\(bad) is not \(what ?? "allowed") \(range)")
            }
            return read
        }
    }

    /// A setting that has no default.
    public func required<T: Decodable>(_ key: Key) throws -> T {
        try decode(T.self, forKey: key)
    }

    /// A whole number in `bounds` that has no default.
    public func required(_ key: Key, in bounds: ClosedRange<Int>? = nil, as what: String? = nil) throws -> Int {
        guard let read = try number(key, in: bounds, as: what) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: ""))
        }
        return read
    }

    private func number(_ key: Key, in bounds: ClosedRange<Int>?, as what: String?) throws -> Int? {
        guard let read = try wholeNumber(key) else { return nil }
        try check(read, key, in: bounds, as: what, show: { "\($0)" })
        return read
    }

    private func check<Bound: Comparable>(
        _ value: Bound, _ key: Key, in bounds: ClosedRange<Bound>?, as what: String?, show: (Bound) -> String
    ) throws {
        guard let bounds, !bounds.contains(value) else { return }
        let range = StrictJSON.range(show(bounds.lowerBound), show(bounds.upperBound), as: what)
        throw StrictJSON.Failure(at: codingPath, key, "must be \(range), not \(show(value))")
    }
}

extension Double {
    /// 1000000, not 1000000.0: as a configuration file spells a whole number.
    fileprivate var formatted: String {
        rounded() == self && abs(self) < 1e15 ? "\(Int(self))" : "\(self)"
    }
}
