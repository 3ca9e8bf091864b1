import FoundationEssentials
import SecureSignals
import SharedTypes

/// A signal that another program keeps in a file: its bytes, as they are at each request.
/// `sdk_unavailable` while the file is missing; `collection_failed` when it is older than
/// `max_age_ms`.
public struct FileSignalAdapter: SignalAdapter {
    public static let name = "file"
    public static let adapterVersion = SemanticVersion(1, 0, 0)
    public let sdkVersion: SemanticVersion

    /// Its `options`.
    @Settings
    public struct Options: Decodable, Sendable, Equatable {
        /// The file (relative to the configuration file's directory).
        var path: String
        /// How old the file may be; any age when not set.
        @WireName("max_age_ms") var maxAgeMilliseconds: Int?
        /// The version of the program that writes the file.
        var sdkVersion = SemanticVersion(0, 0, 0)
    }

    private let path: String
    private let maxAge: TimeInterval?
    /// Files larger than this are not read at all; the collector's cap is far below it.
    private static let readLimit = 1 << 20

    public init(options: Options, context: AdapterContext) async throws {
        path = options.path
        maxAge = options.maxAgeMilliseconds.map { TimeInterval($0) / 1000 }
        sdkVersion = options.sdkVersion
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
        if let size = FileManager.default.sizeOfItem(atPath: path), size > Self.readLimit {
            throw SignalError(.signalTooLarge, "\(path) holds \(size) bytes")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SignalError(.permissionDenied, "cannot read \(path)")
        }
        return .plaintext(Array(data))
    }
}
