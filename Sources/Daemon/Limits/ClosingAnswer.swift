import NIOCore
import NIOHTTP1

// The answers a connection gets below the router, after which it ends: a refusal over a cap,
// an error of the HTTP parser, a read timeout. Written as NIO's HTTP/1 parts, then the close.

extension APIFailure {
    /// The answer's head (its status, JSON, its length, the failure's own headers and
    /// `Connection: close`) and its body.
    func closingAnswer() -> (head: HTTPResponseHead, body: ByteBuffer) {
        let body = (try? body()) ?? Array("{\"error\":{\"code\":\"\(errorCode)\"}}\n".utf8)
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("Content-Length", "\(body.count)")])
        for field in self.headers { headers.add(name: field.name.rawName, value: field.value) }
        headers.replaceOrAdd(name: "Connection", value: "close")
        let head = HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: status.code), headers: headers)
        return (head, ByteBuffer(bytes: body))
    }
}

extension ChannelHandlerContext {
    /// Writes `data` (an answer's end), flushes, and closes the connection once it is written,
    /// not before: a close with writes pending would drop them.
    func writeAndClose(_ data: NIOAny, promise: EventLoopPromise<Void>?) {
        let written = promise ?? eventLoop.makePromise()
        writeAndFlush(data, promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in self.close(promise: nil) }
    }
}
