import Consent
import FoundationEssentials
import SecureSignals
import SharedTypes
import SignalCrypto
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A random pseudonymous id, kept in the state directory (created 0600 when first asked for
/// under consent, kept across restarts), forgotten by a reset (a new one comes next). With
/// `scope` `publisher` (the default) each publisher gets an id of its own, so that publishers
/// cannot join a user across their apps; with `device`, one id serves every app. An identifier
/// that needs consent for TCF purpose 1 (storing on the device): the collector withholds it
/// with `consent_missing` while no privacy state is set, ad tracking is limited, or the consent
/// strings deny it.
public final class FirstPartyIDAdapter: SignalAdapter, ResettableSignalAdapter {
    public static let name = "first-party-id"
    public static let adapterVersion = SemanticVersion(1, 0, 0)
    public static let consent = ConsentRequirement(purposes: [1], identifier: true)
    public let sdkVersion = SemanticVersion(1, 0, 0)

    /// Its `options`.
    @Settings
    public struct Options: Decodable, Sendable, Equatable {
        /// One id per publisher (the default), or one for the device.
        var scope: Scope = .publisher
    }

    /// Whose id a request gets.
    public enum Scope: String, Decodable, Sendable, CaseIterable {
        /// The asking app's publisher's (the app's own when it names no publisher); the
        /// device's for a request of no app.
        case publisher
        /// The device's, whatever app asks.
        case device

        public init(from decoder: any Decoder) throws { self = try StrictJSON.oneOf(decoder) }
    }

    /// The ids in memory: the device's, and each publisher's by its file's name; nil or
    /// missing until first asked for under consent (nothing is stored on the device before).
    private struct IDs {
        var device: String?
        var publishers: [String: String] = [:]
    }

    public let scope: SignalScope
    /// The device's id.
    private let file: URL
    /// A file per publisher, each named by a digest of the publisher's id.
    private let publishers: URL
    private let ids: Mutex<IDs>
    /// What a publisher's file name is a digest under.
    private static let nameKey = Array("secure-signals first-party-id publisher".utf8)

    public init(options: Options, context: AdapterContext) async throws {
        scope = options.scope == .device ? .device : .publisher
        file = context.stateDirectory.appendingPathComponent("first-party-id")
        publishers = context.stateDirectory.appendingPathComponent("first-party-id.publishers")
        do {
            try FileManager.default.createDirectory(at: context.stateDirectory, withIntermediateDirectories: true)
        } catch {
            throw SignalError(.permissionDenied, "cannot keep the id in \(file.path): \(error.readableDescription)")
        }
        guard access(context.stateDirectory.path, W_OK | X_OK) == 0 else {
            throw SignalError(.permissionDenied, "cannot keep the id in \(file.path): the directory is not writable")
        }
        ids = Mutex(IDs(device: Self.read(file)))
    }

    /// The id of the request's publisher (or the device's), made and stored the first time
    /// (the collector asks only under consent).
    public func collectSignals(for request: SignalRequest) async throws -> Signal {
        let key = scope.key(for: request.app)
        let current = try ids.withLock { ids in
            guard let key else {
                if let device = ids.device { return device }
                let fresh = Self.freshID()
                try Self.store(fresh, at: file)
                ids.device = fresh
                return fresh
            }
            let name = try Self.fileName(for: key)
            if let known = ids.publishers[name] { return known }
            let publisherFile = publishers.appendingPathComponent(name)
            if let stored = Self.read(publisherFile) {
                ids.publishers[name] = stored
                return stored
            }
            try Self.makeDirectory(publishers)
            let fresh = Self.freshID()
            try Self.store(fresh, at: publisherFile)
            ids.publishers[name] = fresh
            return fresh
        }
        return .plaintext(Array("{\"first_party_id\":\"\(current)\"}".utf8))
    }

    /// Forgets every id, the device's and each publisher's, on disk too: the next one asked for
    /// under consent is new. Nothing is stored by a reset, so it also erases the ids when
    /// consent is withdrawn.
    public func reset() async throws {
        try ids.withLock { ids in
            try Self.remove(file.path)
            ids.device = nil
            ids.publishers = [:]
            guard FileManager.default.fileExists(atPath: publishers.path) else { return }
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: publishers.path)
            } catch {
                throw SignalError(.permissionDenied, "cannot list \(publishers.path): \(error.readableDescription)")
            }
            for name in names { try Self.remove(publishers.appendingPathComponent(name).path) }
        }
    }

    private static func freshID() -> String { UUID().uuidString.lowercased() }

    /// The id stored in `file`; nil when there is none, or what is there is no id.
    private static func read(_ file: URL) -> String? {
        let text = (try? String(contentsOf: file, encoding: .utf8))?.trimmingWhitespace
        return text.flatMap { UUID(uuidString: $0) == nil ? nil : $0 }
    }

    /// The name of the file of the publisher (or app) `key` names: 64 hex digits, whatever the
    /// id holds (slashes, dots, anything), so that no id reaches outside the directory.
    private static func fileName(for key: String) throws -> String {
        do {
            return try hmacSHA256Hex(key: nameKey, message: Array(key.utf8))
        } catch {
            throw SignalError(.collectionFailed, "cannot name the publisher's id file: \(error)")
        }
    }

    /// Makes `directory` (0700) if it is not there yet, durably.
    private static func makeDirectory(_ directory: URL) throws {
        if mkdir(directory.path, 0o700) == 0 {
            let parent = open(directory.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if parent >= 0 {
                _ = fsync(parent)
                close(parent)
            }
        } else if errno != EEXIST {
            throw SignalError(
                .permissionDenied, "cannot make \(directory.path): \(String(cString: strerror(errno)))")
        }
    }

    private static func remove(_ path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw SignalError(.permissionDenied, "cannot remove \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Writes `id` as `file` (0600), replaced whole and synced.
    private static func store(_ id: String, at file: URL) throws {
        do {
            try DurableFile.replace(file.path, with: Array((id + "\n").utf8), mode: 0o600)
        } catch {
            throw SignalError(.permissionDenied, error.description)
        }
    }
}
