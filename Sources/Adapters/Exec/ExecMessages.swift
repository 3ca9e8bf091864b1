import FoundationEssentials
import SecureSignals
import SharedTypes

/// The newline-delimited JSON the daemon and an adapter program exchange (docs/exec-adapters.md),
/// in the wire format (`WireFormat`).
enum ExecMessage {
    /// Daemon → program.
    @WireKeys
    struct Request<Params: Encodable & Sendable>: Encodable, Sendable {
        var id: Int
        var method: String
        var params: Params
    }

    @WireKeys
    struct InitializeParams: Encodable, Sendable {
        var adapter: String
        var options: [String: JSONValue]
    }

    @WireKeys
    struct CollectParams: Encodable, Sendable {
        var requestID: String
        /// Null when none is set, so that programs always find the key.
        @Nullable var privacy: PrivacyState?
        /// The app asking; null when the request speaks for none.
        @Nullable var app: App?

        init(requestID: String, privacy: PrivacyState?, app: AppIdentity? = nil) {
            self.requestID = requestID
            self.privacy = privacy
            self.app = app.map(App.init)
        }
    }

    /// The app a collection is for, as a program sees it: its id, its store bundle and its
    /// publisher's id (null when the app's description names none).
    @WireKeys
    struct App: Encodable, Sendable {
        var id: String
        @Nullable var bundle: String?
        @Nullable var publisherID: String?

        init(_ app: AppIdentity) {
            id = app.id
            bundle = app.description?.bundle
            publisherID = app.description?.publisher?.id
        }
    }

    /// Program → daemon: exactly one of `result` and `error`. One shape for both methods'
    /// results, so that a line is decoded once.
    @WireKeys
    struct Reply: Decodable, Sendable {
        var id: Int
        var result: ResultBody?
        var error: ErrorBody?
    }

    @WireKeys
    struct ResultBody: Decodable, Sendable {
        /// Of `initialize`.
        var adapterVersion: String?
        var sdkVersion: String?
        /// Of `collect`: base64 of a plaintext, or a string the program sealed itself.
        var signal: String?
        var sealed: String?
    }

    @WireKeys
    struct ErrorBody: Decodable, Sendable {
        var code: String
        var message: String?
    }

    /// Messages from a program are shown to operators; this keeps them to a line.
    static let messageLimit = 300

    /// The error a program reported, with its code if the program may use it.
    static func error(_ body: ErrorBody, allowed: Set<SignalError.Code>, fallback: SignalError.Code) -> SignalError {
        let message = String((body.message ?? "").prefix(messageLimit))
        if let code = SignalError.Code(rawValue: body.code), allowed.contains(code) {
            return SignalError(code, message)
        }
        return SignalError(fallback, "unknown error code '\(body.code.prefix(40))': \(message)")
    }

    /// Codes a program may answer a collection with.
    static let collectCodes: Set<SignalError.Code> = [
        .sdkUnavailable, .consentMissing, .permissionDenied, .collectionFailed,
    ]
}
