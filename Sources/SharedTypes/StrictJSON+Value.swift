import FoundationEssentials

extension StrictJSON {
    /// `value` decoded as `T`, with every failure found (not only the first), each named by its
    /// key path below `path`, an unknown key with the keys its object takes: for a part of a
    /// document whose type another part names (a built-in adapter's `options`, by its `type`),
    /// read once that part is known.
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, at path: String)
        throws(Failures) -> T
    {
        let log = FailureLog()
        var found: [Failure]
        do {
            let data = try JSONEncoder().encode(value)
            let decoded = try FailureLog.$current.withValue(log) { try JSONDecoder().decode(type, from: data) }
            if log.all.isEmpty { return decoded }
            found = log.all
        } catch let failure as Failure {
            found = log.all + [failure]
        } catch let error as DecodingError {
            found = log.all + [describe(error)]
        } catch {
            found = log.all + [Failure(path: "", reason: "\(error)")]
        }
        throw Failures(all: found.map { Failure(path: joined(path, $0.path), reason: reason(of: $0)) })
    }

    /// An unknown key's reason names the keys that its object takes instead.
    private static func reason(of failure: Failure) -> String {
        guard let known = failure.knownKeys else { return failure.reason }
        return failure.reason + (known.isEmpty ? "; this takes none" : "; known: " + known.joined(separator: ", "))
    }

    /// `inner`, a path within the value at `outer`, as a path within the document.
    static func joined(_ outer: String, _ inner: String) -> String {
        if inner.isEmpty { return outer }
        if outer.isEmpty || inner.hasPrefix("[") { return outer + inner }
        return outer + "." + inner
    }
}

extension StrictJSON.Failures: CustomStringConvertible {
    /// Each failure, in the order found, on one line.
    public var description: String { all.map(\.description).joined(separator: "; ") }
}
