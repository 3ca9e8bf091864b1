import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 client for the daemon's outbound requests (bid requests, ad tags, trackers, key
/// sets): NIO's HTTP/1 codec and NIOSSL on NIO's shared event loops, at most
/// `maximumPerOrigin` connections open to an origin and kept between exchanges. It does what the daemon needs and nothing more (no HTTP/2, no
/// proxies, no redirects: callers follow those they allow), at a tenth of AsyncHTTPClient's
/// share of the binary (docs/packaging.md, "What the bytes are").
public final class OutboundClient: Sendable {
    public struct Configuration: Sendable {
        public var connectTimeout: Duration
        public var idleTimeout: Duration
        /// Connections open to one origin at once, in exchanges or kept idle: a request that
        /// finds them all busy waits for one, within its deadline.
        public var maximumPerOrigin: Int
        /// How many times its compressed size a gzip or deflate body may inflate to; nil: bodies
        /// are not asked for compressed.
        public var decompressionRatio: Int?

        public init(
            connectTimeout: Duration = .seconds(2), idleTimeout: Duration = .seconds(60),
            maximumPerOrigin: Int = 16,
            decompressionRatio: Int? = nil
        ) {
            self.connectTimeout = connectTimeout
            self.idleTimeout = idleTimeout
            self.maximumPerOrigin = maximumPerOrigin
            self.decompressionRatio = decompressionRatio
        }
    }

    private let configuration: Configuration
    private let group: any EventLoopGroup
    private let pool: ConnectionPool
    private let tls = TLSContexts()

    public init(
        configuration: Configuration = .init(), group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.configuration = configuration
        self.group = group
        self.pool = ConnectionPool(
            maximumPerOrigin: configuration.maximumPerOrigin, idleTimeout: TimeAmount(configuration.idleTimeout))
    }

    /// `request`'s answer, whole, before `deadline`, over a connection the pool grants (kept,
    /// new, or waited for while `maximumPerOrigin` are open). A kept connection the server
    /// closed meanwhile is replaced by a new one for a GET; a POST is never sent twice. A
    /// cancelled task's exchange ends at once, its connection closed. Connecting, the handshake and the
    /// exchange run as one chain on NIO's event loop, awaited once: each hop between NIO's
    /// threads and Swift's concurrency pool waits its turn on a busy device.
    public func execute(_ request: OutboundRequest, deadline: NIODeadline) async throws(OutboundError)
        -> OutboundResponse
    {
        guard let destination = Destination(request.url, caFile: request.caFile) else { throw .invalidURL }
        guard deadline > .now() else { throw .deadlineExceeded }
        let origin = destination.origin
        var fresh = false
        while true {
            guard !Task.isCancelled else { throw .cancelled }
            let loop = group.next()
            switch try await pool.acquire(origin, fresh: fresh, before: deadline, on: loop) {
            case .kept(let channel):
                do {
                    let kept = channel.eventLoop.makeSucceededFuture(channel)
                    return try await answer(
                        request, to: destination, over: kept, deadline: deadline, late: .deadlineExceeded)
                } catch .closed where request.method == .GET && !Task.isCancelled {
                    // Closed before it answered: most likely it closed while kept, as servers
                    // may. Asked again once, on a new connection.
                    fresh = true
                }
            case .room:
                let (connected, late) = try connect(origin, deadline: deadline, on: loop)
                return try await answer(request, to: destination, over: connected, deadline: deadline, late: late)
            }
        }
    }

    /// How many connections to `url`'s origin are kept open now.
    public func idleConnections(to url: String, caFile: String? = nil) -> Int {
        Destination(url, caFile: caFile).map { pool.count($0.origin).idle } ?? 0
    }

    /// How many connections to `url`'s origin are open now, kept or in an exchange.
    public func openConnections(to url: String, caFile: String? = nil) -> Int {
        Destination(url, caFile: caFile).map { pool.count($0.origin).open } ?? 0
    }

    /// How many requests wait for a connection to `url`'s origin now.
    func waitingRequests(to url: String) -> Int {
        Destination(url, caFile: nil).map { pool.count($0.origin).waiting } ?? 0
    }

    /// The exchange on the connection `connected` gives, awaited; the connection is kept for
    /// the next if the answer allows it. `late`: what a connection not made in time is.
    private func answer(
        _ request: OutboundRequest, to destination: Destination, over connected: EventLoopFuture<any Channel>,
        deadline: NIODeadline, late: OutboundError
    ) async throws(OutboundError) -> OutboundResponse {
        let answered = connected.flatMap { channel in
            self.send(request, to: destination, on: channel, deadline: deadline).map { (channel, $0) }
        }
        let done = connected.eventLoop.makePromise(of: (any Channel, Exchange.Outcome).self)
        answered.cascade(to: done)
        let channel: any Channel
        let outcome: Exchange.Outcome
        do {
            (channel, outcome) = try await withTaskCancellationHandler {
                try await done.futureResult.get()
            } onCancel: {
                done.fail(OutboundError.cancelled)
                connected.whenSuccess { $0.close(promise: nil) }
            }
        } catch {
            throw Self.failure(error, late: late)
        }
        if outcome.reusable { pool.finished(channel, for: destination.origin) } else { channel.close(promise: nil) }
        return outcome.response
    }

    /// Writes `request` on `channel` (on its event loop); its outcome.
    private func send(
        _ request: OutboundRequest, to destination: Destination, on channel: any Channel, deadline: NIODeadline
    ) -> EventLoopFuture<Exchange.Outcome> {
        var headers = HTTPHeaders([("Host", destination.hostHeader)])
        for header in request.headers { headers.replaceOrAdd(name: header.name, value: header.value) }
        if request.body != nil || request.method == .POST {
            headers.replaceOrAdd(name: "Content-Length", value: String(request.body?.count ?? 0))
        }
        let promise = channel.eventLoop.makePromise(of: Exchange.Outcome.self)
        let exchange = Exchange(
            head: HTTPRequestHead(version: .http1_1, method: request.method, uri: destination.target, headers: headers),
            body: request.body.map { ByteBuffer(bytes: $0) }, deadline: deadline, maximumBytes: request.maximumBytes,
            promise: promise)
        // A write that fails before the handler takes it fails the exchange: on a connection
        // that closed, as not answered; once taken, the handler completes it, and a second
        // completion is ignored.
        channel.writeAndFlush(exchange).whenFailure { error in
            let closed = [.ioOnClosedChannel, .alreadyClosed].contains(error as? ChannelError)
            promise.fail(closed ? OutboundError.closed : error)
        }
        return promise.futureResult
    }

    /// A new connection to `origin` on `loop`, in the room reserved for it, its TLS and HTTP
    /// handlers in place and its handshake done, all within the connect timeout and the
    /// deadline; and what it not being made in time is. The room is given back when the
    /// connection closes, or when it is not made.
    private func connect(_ origin: Destination.Origin, deadline: NIODeadline, on loop: any EventLoop)
        throws(OutboundError) -> (EventLoopFuture<any Channel>, late: OutboundError)
    {
        let left = deadline - .now()
        let connectTimeout = TimeAmount(configuration.connectTimeout)
        guard left > .zero, !Task.isCancelled else {
            pool.closed(nil, for: origin)
            throw left > .zero ? .cancelled : .deadlineExceeded
        }
        let late: OutboundError = left < connectTimeout ? .deadlineExceeded : .connectTimeout
        let ready = loop.makePromise(of: Void.self)
        let timer = loop.scheduleTask(in: min(left, connectTimeout)) { ready.fail(late) }
        let address = try? SocketAddress(ipAddress: origin.host, port: origin.port)
        let bootstrap: ClientBootstrap
        do {
            bootstrap = try self.bootstrap(origin, named: address == nil, on: loop, ready: ready)
                .connectTimeout(min(left, connectTimeout))
        } catch {
            pool.closed(nil, for: origin)
            throw error
        }
        // An address is connected to as it is; a name is resolved, each address tried (happy eyeballs).
        let connecting =
            address.map { bootstrap.connect(to: $0) } ?? bootstrap.connect(host: origin.host, port: origin.port)
        connecting.whenComplete { result in
            switch result {
            case .success(let channel): channel.closeFuture.whenComplete { _ in self.pool.closed(channel, for: origin) }
            case .failure: self.pool.closed(nil, for: origin)
            }
        }
        let connected = connecting.flatMap { channel in
            ready.futureResult.map { channel }.flatMapErrorThrowing { error in
                channel.close(promise: nil)
                throw error
            }
        }
        connected.whenComplete { _ in
            timer.cancel()
            ready.fail(late)  // ignored once completed; NIO traps on a promise left unfulfilled
        }
        return (connected, late)
    }

    /// `error` as the exchange's failure.
    private static func failure(_ error: any Error, late: OutboundError) -> OutboundError {
        switch error {
        case let error as OutboundError: return error
        case ChannelError.connectTimeout: return late
        case let error where refused(error): return .refused
        default: return .transport("\(error)")
        }
    }

    /// How a connection to `origin` is made: on `loop`, with TLS for https (its certificate
    /// checked against the host's name if it is `named`, else against its address) and the HTTP/1 codec.
    private func bootstrap(
        _ origin: Destination.Origin, named: Bool, on loop: any EventLoop, ready: EventLoopPromise<Void>
    ) throws(OutboundError) -> ClientBootstrap {
        let context: NIOSSLContext?
        do {
            context = origin.secure ? try tls.context(trusting: origin.caFile) : nil
        } catch {
            throw .transport("TLS: the certificate authorities cannot be loaded: \(error)")
        }
        let ratio = configuration.decompressionRatio
        return ClientBootstrap(group: loop).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                let sync = channel.pipeline.syncOperations
                if let context {
                    // No name in SNI for an address: the certificate is checked against the address.
                    try sync.addHandler(
                        NIOSSLClientHandler(context: context, serverHostname: named ? origin.host : nil))
                }
                try sync.addHTTPClientHandlers()
                if let ratio { try sync.addHandler(NIOHTTPResponseDecompressor(limit: .ratio(ratio))) }
                try sync.addHandler(ExchangeHandler(ready: ready, secure: context != nil))
            }
        }
    }

    /// Whether the server refused the connection (ECONNREFUSED), on its only address or on every one.
    private static func refused(_ error: any Error) -> Bool {
        if let error = error as? IOError { return error.errnoCode == ECONNREFUSED }
        if let error = error as? NIOConnectionError {
            return !error.connectionErrors.isEmpty && error.connectionErrors.allSatisfy { refused($0.error) }
        }
        return false
    }
}
