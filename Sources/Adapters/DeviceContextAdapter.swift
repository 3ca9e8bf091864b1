import FoundationEssentials
import SecureSignals
import SharedTypes

#if canImport(Glibc)
    import Glibc
#endif

/// The device's context: OS name and version, kernel release, architecture, locale, time
/// zone, and the brand and model its options name. Computed once at init (the seed's
/// signals that stay the same across collections); needs no consent, as it names no one.
public struct DeviceContextAdapter: SignalAdapter {
    public static let name = "device-context"
    public static let adapterVersion = SemanticVersion(1, 0, 0)

    /// Its `options`.
    @Settings
    public struct Options: Decodable, Sendable, Equatable {
        var brand: String?
        var model: String?
        var osReleasePath = "/etc/os-release"
    }

    /// The kernel release: what this adapter reads the device through.
    public let sdkVersion: SemanticVersion
    public let context: DeviceContext
    private let encoded: [UInt8]

    @WireKeys
    public struct DeviceContext: Codable, Sendable, Equatable {
        public var os: String
        public var osVersion: String
        public var kernel: String
        public var architecture: String
        public var locale: String
        public var timeZone: String
        public var brand: String?
        public var model: String?

    }

    public init(options: Options, context: AdapterContext) async throws {
        self.context = try Self.read(brand: options.brand, model: options.model, osReleasePath: options.osReleasePath)
        let kernel = self.context.kernel
        self.sdkVersion = SemanticVersion(parsing: kernel) ?? SemanticVersion(0, 0, 0)
        self.encoded = Array(try WireFormat.encoder().encode(self.context))
    }

    /// Reads the device's context; the OpenRTB network fills its bid requests' `device` from it.
    public static func read(brand: String?, model: String?, osReleasePath: String) throws -> DeviceContext {
        let release: [String: String]
        do {
            release = Self.parseOSRelease(try String(contentsOfFile: osReleasePath, encoding: .utf8))
        } catch {
            throw SignalError(.sdkUnavailable, "cannot read \(osReleasePath): \(error.readableDescription)")
        }
        var system = utsname()
        uname(&system)
        return DeviceContext(
            os: release["NAME"] ?? "Linux", osVersion: release["VERSION_ID"] ?? "", kernel: string(of: &system.release),
            architecture: string(of: &system.machine), locale: LocalLocale.identifier(),
            timeZone: LocalTimeZone.identifier(),
            brand: brand, model: model)
    }

    public func collectSignals(for request: SignalRequest) async throws -> Signal {
        .plaintext(encoded)
    }

    /// The `KEY=value` lines of os-release(5), with shell quoting removed.
    static func parseOSRelease(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingWhitespace
            guard !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else { continue }
            var value = String(trimmed[trimmed.index(after: equals)...])
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast()).replacing("\\\"", with: "\"")
            }
            fields[String(trimmed[..<equals])] = value
        }
        return fields
    }

    private static func string<T>(of field: inout T) -> String {
        withUnsafeBytes(of: &field) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
