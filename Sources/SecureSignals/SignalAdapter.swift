import Consent
import Foundation
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
}

extension SignalSource {
    public func programStatus() async -> ProgramStatus? { nil }
    public func shutdown() async {}
}

/// A source of one secure signal compiled into the daemon (the seed's `IMASecureSignalsAdapter`,
/// in Swift).
///
/// The collector creates an adapter exactly once, when the daemon starts; a throw from `init`
/// is the adapter's init error, answered unchanged on every later request. `collectSignals` is
/// then called before every ad request, concurrently with the other adapters, under a timeout.
public protocol SignalAdapter: SignalSource {
    /// The registered name; the configuration allowlists adapters by it.
    static var name: String { get }
    static var adapterVersion: SemanticVersion { get }
    /// The keys its `options` may hold; any other key is a configuration error.
    static var optionKeys: OptionKeys { get }
    /// What it needs from the user's consent unless its configuration says (`consent`); by
    /// default nothing.
    static var consent: ConsentRequirement { get }
    init(context: AdapterContext) async throws
}

extension SignalAdapter {
    public var adapterVersion: SemanticVersion { Self.adapterVersion }
    public static var consent: ConsentRequirement { .none }
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
public struct SignalRequest: Sendable {
    public var requestID: String
    /// The device's privacy state; nil while none has been set, which counts as no consent.
    public var privacy: PrivacyState?

    public init(requestID: String, privacy: PrivacyState?) {
        self.requestID = requestID
        self.privacy = privacy
    }
}

/// What an adapter gets at init.
public struct AdapterContext: Sendable {
    /// The configured instance name (several instances of one adapter type may run).
    public var name: String
    public var options: AdapterOptions
    /// A directory the adapter may keep state in, across restarts.
    public var stateDirectory: URL
    public var logger: Logger
    /// How long the adapter may take to initialize before it counts as failed.
    public var initTimeout: Duration
    /// The daemon's clock: an adapter that waits for time waits on it.
    public var clock: any Clock<Duration>
    /// Where the adapter's own metrics go.
    public var metrics: any MetricsFactory

    public init(
        name: String, options: AdapterOptions, stateDirectory: URL, logger: Logger,
        initTimeout: Duration = AdapterConfiguration.standardInitTimeout,
        clock: any Clock<Duration> = ContinuousClock(),
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.name = name
        self.options = options
        self.stateDirectory = stateDirectory
        self.logger = logger
        self.initTimeout = initTimeout
        self.clock = clock
        self.metrics = metrics
    }
}
