import Foundation
import SecureSignals
import SharedTypes

/// A signal that another program keeps in a file: its bytes, as they are at each request.
/// `sdk_unavailable` while the file is missing; `collection_failed` when it is older than
/// `max_age_ms`.
///
/// Options: `path` (required), `max_age_ms`, `sdk_version` (the writing program's version).
public struct FileSignalAdapter: SignalAdapter {
    public static let name = "file"
    public static let adapterVersion = SemanticVersion(1, 0, 0)
    public static let optionKeys: OptionKeys = ["path", "max_age_ms", "sdk_version"]
    public let sdkVersion: SemanticVersion

    private let path: String
    private let maxAge: TimeInterval?
    /// Files larger than this are not read at all; the collector's cap is far below it.
    private static let readLimit = 1 << 20

    public init(context: AdapterContext) async throws {
        path = try context.options.requiredString("path")
        maxAge = try context.options.int("max_age_ms").map { TimeInterval($0) / 1000 }
        let version = try context.options.string("sdk_version") ?? "0.0.0"
        guard let parsed = SemanticVersion(parsing: version) else {
            throw SignalError(.adapterInitFailed, "option 'sdk_version' is not a version: \(version)")
        }
        sdkVersion = parsed
    }

    public func collectSignals(for request: SignalRequest) async throws -> Signal {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw SignalError(.sdkUnavailable, "\(path) does not exist")
        }
        if let maxAge, let modified = attributes[.modificationDate] as? Date {
            let age = Date().timeIntervalSince(modified)
            guard age <= maxAge else {
                throw SignalError(
                    .collectionFailed,
                    "\(path) is \(Int(age * 1000)) ms old, older than max_age_ms \(Int(maxAge * 1000))")
            }
        }
        if let size = attributes[.size] as? Int, size > Self.readLimit {
            throw SignalError(.signalTooLarge, "\(path) holds \(size) bytes")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SignalError(.permissionDenied, "cannot read \(path)")
        }
        return .plaintext(Array(data))
    }
}
