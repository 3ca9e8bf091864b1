import FoundationEssentials
import SignalCrypto
import Timing

/// Where each recipient's last good key set is kept across restarts: `NAME.json` in
/// `directory` (the state directory's `recipients`), replaced whole and synced to disk before
/// it counts, so that a device that reboots without network seals at once.
public struct RecipientKeyStore: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// The file as written: the key set and the URL it came from (a set fetched from another
    /// URL than the configuration names now is not used).
    struct Stored: Codable {
        var url: String
        var fetchedAtMilliseconds: Int64
        var lifetimeMilliseconds: Int64
        /// The `application/ohttp-keys` body, base64.
        var keys: String

        enum CodingKeys: String, CodingKey {
            case url, keys
            case fetchedAtMilliseconds = "fetched_at_ms"
            case lifetimeMilliseconds = "lifetime_ms"
        }
    }

    /// Why a stored set cannot be used.
    public struct Damaged: Error, CustomStringConvertible {
        public var description: String
    }

    func file(_ name: String) -> URL { directory.appendingPathComponent("\(name).json") }

    /// Replaces `name`'s stored set: written to a new file, synced, renamed over the old one,
    /// and the directory synced, so a power cut leaves the old set or the new, never half.
    public func save(_ set: RecipientKeySet, for name: String, url: String) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let stored = Stored(
            url: url, fetchedAtMilliseconds: set.fetchedAt, lifetimeMilliseconds: set.lifetime.wholeMilliseconds,
            keys: Data(KeyConfig.encodeCollection(set.configs)).base64EncodedString())
        do {
            try DurableFile.replace(file(name).path, with: Array(try JSONEncoder().encode(stored)), mode: 0o644)
        } catch let failure as DurableFile.Failure {
            throw Damaged(description: failure.description)
        }
    }

    /// `name`'s stored set if there is one from `url`; throws `Damaged` for a file that
    /// cannot be read as one.
    public func load(_ name: String, url: String) throws -> RecipientKeySet? {
        let path = file(name)
        guard FileManager.default.fileExists(atPath: path.path) else { return nil }
        let stored: Stored
        do {
            stored = try JSONDecoder().decode(Stored.self, from: Data(contentsOf: path))
        } catch {
            throw Damaged(description: "\(path.path) is not a stored key set: \(error)")
        }
        guard stored.url == url else { return nil }
        guard let body = Data(base64Encoded: stored.keys), stored.lifetimeMilliseconds > 0 else {
            throw Damaged(description: "\(path.path) holds no key set")
        }
        do {
            let configs = try KeyConfig.decodeCollection(Array(body))
            try KeyConfig.checkKeyIDs(configs)
            return RecipientKeySet(
                configs: configs, fetchedAt: stored.fetchedAtMilliseconds,
                lifetime: .milliseconds(stored.lifetimeMilliseconds))
        } catch {
            throw Damaged(description: "\(path.path): \(error)")
        }
    }
}
