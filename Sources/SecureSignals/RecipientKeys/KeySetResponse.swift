import FoundationEssentials
import SharedTypes
import SignalCrypto

/// What a recipient's `key_url` answered, judged: a key set only from a 200 of type
/// `application/ohttp-keys`, at most 64 KiB, that decodes whole (RFC 9458 §3.2; configurations
/// of a KEM the daemon lacks are left out), names no key id twice with different keys, and has
/// a configuration this daemon can seal with. Anything
/// else is refused with why, and the last good set stays in force.
public enum KeySetResponse {
    public static let maximumBytes = 64 << 10
    public static let contentType = "application/ohttp-keys"

    /// Why an answer (or the fetch) gave no key set: `reason` labels the fetch metric,
    /// `description` says it to a person.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public enum Reason: String, Sendable, CaseIterable {
            case status
            case contentType = "content_type"
            case tooLarge = "too_large"
            case undecodable
            case noSupportedSuite = "no_supported_suite"
            case redirect
            case timeout
            case transport
        }

        public var reason: Reason
        public var description: String

        public init(_ reason: Reason, _ description: String) {
            self.reason = reason
            self.description = description
        }
    }

    /// `headers`: names lowercased. `fetchedAt`: wall-clock milliseconds.
    public static func keySet(
        status: Int, headers: [String: String], body: [UInt8], fetchedAt: Int64, defaultMaxAge: Duration
    ) throws(Refusal) -> RecipientKeySet {
        guard status == 200 else { throw Refusal(.status, "answered HTTP \(status)") }
        let type = headers["content-type"]?.split(separator: ";").first?.trimmingWhitespace
        guard type?.lowercased() == contentType else {
            throw Refusal(
                .contentType, "answered \(type.map { "type \($0)" } ?? "no content type"), not \(contentType)")
        }
        guard body.count <= maximumBytes else {
            throw Refusal(.tooLarge, "answered \(body.count) bytes, more than \(maximumBytes)")
        }
        let configs: [KeyConfig]
        do {
            // Configurations of another KEM are left out: the set is judged by the rest.
            configs = try KeyConfig.decodePublishedSet(body).configs
        } catch {
            throw Refusal(.undecodable, "answered a body that is not a key set: \(error)")
        }
        guard configs.contains(where: { !$0.supportedSuites.isEmpty }) else {
            throw Refusal(.noSupportedSuite, "answered no configuration with a suite this daemon supports")
        }
        return RecipientKeySet(
            configs: configs, fetchedAt: fetchedAt,
            lifetime: KeySetLifetime.of(
                cacheControl: headers["cache-control"], age: headers["age"], default: defaultMaxAge))
    }
}
