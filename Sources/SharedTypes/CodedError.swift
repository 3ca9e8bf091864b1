/// A failure with a stable code that clients switch on and a message for people: the shape of
/// every domain error (`SignalError`, `AdLoadError`, `AdLifecycleError`), each with its own
/// codes.
public struct CodedError<Codes: RawRepresentable & Hashable & Sendable>: Error, Sendable, Equatable,
    CustomStringConvertible
where Codes.RawValue == String {
    /// The error's codes: `SignalError.Code` is `SignalErrorCode`.
    public typealias Code = Codes

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
