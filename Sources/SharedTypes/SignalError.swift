/// A failure of one adapter, reported for that adapter only.
public typealias SignalError = CodedError<SignalErrorCode>

/// Why an adapter gave no signal; stable strings.
public enum SignalErrorCode: String, Sendable, Codable, CaseIterable {
    case adapterInitFailed = "adapter_init_failed"
    case sdkUnavailable = "sdk_unavailable"
    case consentMissing = "consent_missing"
    case permissionDenied = "permission_denied"
    case timeout = "timeout"
    case collectionFailed = "collection_failed"
    case noRecipientKey = "no_recipient_key"
    case unknownAdapter = "unknown_adapter"
    case signalTooLarge = "signal_too_large"
    /// Skipped: the adapter failed too often in a row and is cooling down.
    case circuitOpen = "circuit_open"
}

extension CodedError where Codes == SignalErrorCode {
    /// Whether this failure counts against the adapter's circuit breaker: the adapter was asked
    /// and did not answer. A refusal it chose (no consent, no permission) is an answer.
    package var isAdapterFault: Bool {
        [.timeout, .collectionFailed, .sdkUnavailable].contains(code)
    }

    /// `error` as a signal error: itself when it is one, else `fallback` with its description.
    package static func from(_ error: any Error, fallback: Code) -> SignalError {
        if let error = error as? SignalError { return error }
        return SignalError(fallback, String(describing: error))
    }
}
