import Consent
import Foundation
import SecureSignals
import SharedTypes
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A random pseudonymous device id, kept in the state directory (created 0600 when first asked
/// for under consent, kept across restarts), forgotten by a reset (a new one comes next). An identifier that needs consent for TCF
/// purpose 1 (storing on the device): the collector withholds it with `consent_missing`
/// while no privacy state is set, ad tracking is limited, or the consent strings deny it.
public final class FirstPartyIDAdapter: SignalAdapter, ResettableSignalAdapter {
    public static let name = "first-party-id"
    public static let adapterVersion = SemanticVersion(1, 0, 0)
    public static let consent = ConsentRequirement(purposes: [1], identifier: true)
    public let sdkVersion = SemanticVersion(1, 0, 0)

    private let file: URL
    /// The id; nil until first asked for under consent: nothing is stored on the device before.
    private let id: Mutex<String?>

    /// It takes no options: its id lives in the state directory.
    public init(options: NoOptions, context: AdapterContext) async throws {
        file = context.stateDirectory.appendingPathComponent("first-party-id")
        do {
            try FileManager.default.createDirectory(at: context.stateDirectory, withIntermediateDirectories: true)
        } catch {
            throw SignalError(.permissionDenied, "cannot keep the id in \(file.path): \(error.localizedDescription)")
        }
        guard access(context.stateDirectory.path, W_OK | X_OK) == 0 else {
            throw SignalError(.permissionDenied, "cannot keep the id in \(file.path): the directory is not writable")
        }
        let existing = (try? String(contentsOf: file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        id = Mutex(existing.flatMap { UUID(uuidString: $0) == nil ? nil : $0 })
    }

    /// The id, made and stored the first time (the collector asks only under consent).
    public func collectSignals(for request: SignalRequest) async throws -> Signal {
        let current = try id.withLock { current in
            if let current { return current }
            let fresh = UUID().uuidString.lowercased()
            try Self.store(fresh, at: file)
            current = fresh
            return fresh
        }
        return .plaintext(Array("{\"first_party_id\":\"\(current)\"}".utf8))
    }

    /// Forgets the id, on disk too: the next one asked for under consent is new. Nothing is
    /// stored by a reset, so it also erases the id when consent is withdrawn.
    public func reset() async throws {
        try id.withLock { current in
            guard unlink(file.path) == 0 || errno == ENOENT else {
                throw SignalError(.permissionDenied, "cannot remove \(file.path): \(String(cString: strerror(errno)))")
            }
            current = nil
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
