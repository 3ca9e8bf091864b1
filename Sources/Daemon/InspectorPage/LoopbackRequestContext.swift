import Hummingbird
import NIOCore

/// The request context of the loopback listener (`metrics.listen`): no peer credentials (TCP
/// cannot say who is asking), the connection for the page's stream, answers in the wire format.
struct LoopbackRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connection: the page's stream ends when it closes.
    let channel: any Channel

    var responseEncoder: WireResponseEncoder { WireResponseEncoder() }

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }
}
