import API
import Hummingbird
import Logging
import NIOCore
import SharedTypes

/// The request context of the socket API: Hummingbird's core storage plus the credentials of
/// the connection the request came on (read once per connection by `DaemonChannel`).
struct DaemonRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's pid, uid and gid; nil where the socket cannot say (not AF_UNIX).
    let peer: PeerCredentials?
    /// The connection: an event stream ends when it closes.
    let channel: any Channel
    /// The app the request speaks for, once `AccessMiddleware` recognized it.
    var app: AppIdentity?

    /// Bodies are read strictly, answers written in the wire format.
    var requestDecoder: StrictRequestDecoder { StrictRequestDecoder() }
    var responseEncoder: WireResponseEncoder { WireResponseEncoder() }

    /// The app the request speaks for; 403 `unknown_app` when none was recognized (a route
    /// that acts for an app never guesses one).
    func requireApp() throws(APIError) -> AppIdentity {
        guard let app else { throw APIError(.forbidden, .unknownApp, "the request speaks for no recognized app") }
        return app
    }

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        peer = PeerCredentialScope.current
        channel = source.channel
    }
}
