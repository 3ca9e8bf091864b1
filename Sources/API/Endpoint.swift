import SharedTypes

/// One route of the socket API: its method and its path pattern, written as the router and
/// the documentation write it (`/v1/ads/{id}/impression`).
public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    public enum Method: String, Sendable, CaseIterable {
        case get = "GET"
        case post = "POST"
        case put = "PUT"
        case delete = "DELETE"
    }

    /// What the route's answer acknowledges, which decides what it waits for.
    public enum Acknowledges: Sendable, Hashable {
        /// Nothing owed: it never waits for the state database.
        case nothingOwed
        /// Something the daemon then owes (tracker pings, a reward): answered only once durable.
        case owed
        /// A claim: refused up front while the state database is out, but not waited for.
        case claim
    }

    public let method: Method
    public let pattern: String
    public let acknowledges: Acknowledges
    /// What the asking app must be granted (`apps`); nil: any app that may connect.
    public let requires: AppCapability?

    init(
        _ method: Method, _ pattern: String, requires: AppCapability? = nil, acknowledges: Acknowledges = .nothingOwed
    ) {
        self.method = method
        self.pattern = pattern
        self.requires = requires
        self.acknowledges = acknowledges
    }

    /// `GET /v1/ads/{id}`.
    public var description: String { "\(method.rawValue) \(pattern)" }

    /// The names of the pattern's parameters, in order (`["id"]`).
    public var parameterNames: [String] {
        pattern.split(separator: "/").compactMap { segment in
            segment.first == "{" && segment.last == "}" ? String(segment.dropFirst().dropLast()) : nil
        }
    }

    /// The path with `values` in its parameters' places, in order, each percent-encoded as one
    /// segment, and `query` (name and value pairs, each encoded) after a `?` when not empty.
    public func path(_ values: String..., query: [(String, String)] = []) -> String {
        path(values, query: query)
    }

    /// `path(_:query:)` with the values in an array.
    public func path(_ values: [String], query: [(String, String)] = []) -> String {
        precondition(values.count == parameterNames.count, "\(self) takes \(parameterNames.count) parameters")
        var remaining = values.makeIterator()
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.first == "{" && segment.last == "}"
                ? PercentEncoding.segment(remaining.next() ?? "") : String(segment)
        }
        let path = segments.joined(separator: "/")
        guard !query.isEmpty else { return path }
        return path + "?"
            + query.map { "\(PercentEncoding.segment($0.0))=\(PercentEncoding.segment($0.1))" }.joined(separator: "&")
    }
}
