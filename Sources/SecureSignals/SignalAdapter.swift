import Consent
import FoundationEssentials
import Logging
import Metrics
import SharedTypes

/// A live adapter, however it came to be: an instance of a registered type, or a program the
/// daemon supervises. The collector asks it for a signal before every ad request.
public protocol SignalSource: Sendable {
    /// The adapter's own version; a program reports it when initialized.
    var adapterVersion: SemanticVersion { get }
    /// The runtime version of what the adapter wraps (an SDK, the OS, another program).
    var sdkVersion: SemanticVersion { get }
    /// The signal for one ad request. Throw a `SignalError` to choose the error code; any
    /// other error is reported as `collection_failed`.
    func collectSignals(for request: SignalRequest) async throws -> Signal
    /// What the program behind the adapter is doing; nil for adapters that run in the daemon.
    func programStatus() async -> ProgramStatus?
    /// Stops whatever the adapter runs; called once, when it is removed or the daemon stops.
    func shutdown() async
    /// How its signal depends on the asking app, and so what a cached signal may serve; `device` by default.
    var scope: SignalScope { get }
}

extension SignalSource {
    public func programStatus() async -> ProgramStatus? { nil }
    public func shutdown() async {}
    public var scope: SignalScope { .device }
}

/// How an adapter's signal depends on the app asking: the host keeps a cached signal per
/// scope key (and per privacy state), and serves it to no app of another key.
public enum SignalScope: String, Sendable, CaseIterable {
    /// The same for every app: one cached signal serves them all.
    case device
    /// The same for the apps of one publisher: kept per publisher (the app's id when it names none).
    case publisher
    /// Its own for each app: kept per app.
    case app

    /// What a signal of this scope for `app` is kept under: nil for the device (and for a
    /// request that names no app), `publisher:ID` or `app:ID` otherwise.
    public func key(for app: AppIdentity?) -> String? {
        guard let app else { return nil }
        switch self {
        case .device: return nil
        case .publisher:
            if let publisher = app.description?.publisher?.id { return "publisher:\(publisher)" }
            return "app:\(app.id)"
        case .app: return "app:\(app.id)"
        }
    }
}

/// A source of one secure signal compiled into the daemon (the seed's `IMASecureSignalsAdapter`,
/// in Swift).
///
/// The collector creates an adapter exactly once, when the daemon starts; a throw from `init`
/// is the adapter's init error, answered unchanged on every later request. `collectSignals` is
/// then called before every ad request, concurrently with the other adapters, under a timeout.
public protocol SignalAdapter: SignalSource {
    /// What its `options` hold: a `@Settings` struct (keys, defaults, bounds), decoded when the
    /// configuration is read, so that a misspelt key or a wrong value is a configuration error
    /// naming its key path. `NoOptions` (the default) for an adapter that takes none.
    associatedtype Options: Decodable & Sendable & Equatable = NoOptions
    /// The registered name; the configuration allowlists adapters by it.
    static var name: String { get }
    static var adapterVersion: SemanticVersion { get }
    /// What it needs from the user's consent unless its configuration says (`consent`); by
    /// default nothing.
    static var consent: ConsentRequirement { get }
    init(options: Options, context: AdapterContext) async throws
}

extension SignalAdapter {
    public var adapterVersion: SemanticVersion { Self.adapterVersion }
    public static var consent: ConsentRequirement { .none }

    /// `json` decoded as its options, as the configuration decodes them: every failure named by
    /// its key path below `path`.
    public static func decodeOptions(_ json: [String: JSONValue], at path: String = "options")
        throws(StrictJSON.Failures) -> DecodedOptions
    {
        try DecodedOptions.decoding(Options.self, from: json, at: path)
    }

    /// An instance made with `options` as its type decoded them (its defaults when nil): how the
    /// registry makes a configured adapter.
    public static func make(options: DecodedOptions?, context: AdapterContext) async throws -> Self {
        try await Self(options: DecodedOptions.settingUp(options, as: Options.self, at: "options"), context: context)
    }
}

/// An adapter whose state can be reset on request (`POST /v1/adapters/{name}/reset`).
public protocol ResettableSignalAdapter: SignalSource {
    func reset() async throws
}

/// What an adapter returns: raw bytes the daemon seals for each recipient, or a string the
/// adapter already encrypted itself, passed through as it is.
public enum Signal: Sendable, Equatable {
    case plaintext([UInt8])
    case sealed(String)
}

/// One ad request, as an adapter sees it.
@MemberwiseInit
public struct SignalRequest: Sendable {
    public var requestID: String
    /// The asking app's privacy state; nil while none has been set, which counts as no consent.
    public var privacy: PrivacyState?
    /// The app asking, as the daemon recognized it (nil in tests of the core alone).
    public var app: AppIdentity? = nil
}

/// What an adapter gets at init, besides its options.
@MemberwiseInit
public struct AdapterContext: Sendable {
    /// The configured instance name (several instances of one adapter type may run).
    public var name: String
    /// A directory the adapter may keep state in, across restarts.
    public var stateDirectory: URL
    public var logger: Logger
    /// How long the adapter may take to initialize before it counts as failed.
    public var initTimeout: Duration = AdapterConfiguration.standardInitTimeout
    /// The daemon's clock: an adapter that waits for time waits on it.
    public var clock: any Clock<Duration> = ContinuousClock()
    /// Where the adapter's own metrics go.
    public var metrics: any MetricsFactory = MetricsSystem.factory
}
