/// One sealed signal in a collection's answer; `recipient` and `key_id` are null for a signal
/// the adapter sealed itself.
@WireKeys
@MemberwiseInit
public struct SealedSignal: Sendable, Codable, Equatable {
    public var adapter: String
    public var adapterVersion: SemanticVersion
    public var sdkVersion: SemanticVersion
    /// The recipient it is sealed for; nil when the adapter sealed it itself.
    @Nullable public var recipient: String?
    @Nullable public var keyID: Int?
    public var envelope: String
    /// Whether the plaintext came from the adapter's cache (the envelope is always new).
    public var cached: Bool
}

/// An adapter that could not answer a request, and why; `recipient` names the one recipient
/// it could not be sealed for (`no_recipient_key`) while its other recipients got theirs.
@WireKeys
@MemberwiseInit
public struct AdapterFailure: Sendable, Codable, Equatable {
    public var adapter: String
    public var recipient: String?
    public var code: SignalError.Code
    public var message: String
}

/// The answer to one request: what arrived in time, and an error for each adapter that did not.
@WireKeys
@MemberwiseInit
public struct CollectionResult: Sendable, Codable, Equatable {
    public var requestID: String
    public var signals: [SealedSignal]
    public var errors: [AdapterFailure]
}

/// Where an ad network gets the secure signals it attaches to its requests: the daemon's
/// signal collector, seen only through what it answers.
public protocol SignalProvider: Sendable {
    /// Signals for one request: `adapters` selects some (all when nil; each once), `timeout`
    /// shortens the configured deadline; without `identifiers`, no adapter that handles an
    /// identifier is asked (an ad request in limited serving mode); `app` is the app the ad is
    /// for, whose privacy state decides. Answers within the deadline whatever the adapters do.
    func collect(requestID: String, adapters: [String]?, timeout: Duration?, identifiers: Bool, app: AppIdentity?)
        async -> CollectionResult
    /// Every adapter's state and versions, as `GET /v1/adapters` lists them.
    func statuses() async -> [AdapterStatus]
}
