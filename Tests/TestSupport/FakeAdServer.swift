import Bench
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTLS
import NIOCore
import Synchronization

/// A real HTTP server on loopback standing in for bidders and VAST ad servers: each path
/// answers what the test set (a file of `../shared/samples`, a broken variant, a status, a
/// delay), and every request it gets is kept for the test to read back.
public final class FakeAdServer: Sendable {
    public struct Answer: Sendable {
        public var status: Int
        public var body: [UInt8]
        public var contentType: String
        public var headers: [String: String]
        public var delay: Duration?
        /// Sends the head and the body's first byte, then waits this long before the rest: a
        /// server that stalls mid-answer.
        public var bodyDelay: Duration?

        public init(
            status: Int = 200, body: [UInt8] = [], contentType: String = "application/json",
            headers: [String: String] = [:], delay: Duration? = nil, bodyDelay: Duration? = nil
        ) {
            self.status = status
            self.body = body
            self.contentType = contentType
            self.headers = headers
            self.delay = delay
            self.bodyDelay = bodyDelay
        }
    }

    public struct Received: Sendable {
        public var method: String
        public var path: String
        public var query: String
        public var headers: [String: String]
        /// The `Host` header, which HTTP/2's `:authority` stands for among the headers.
        public var authority: String?
        public var body: [UInt8]
        /// The status it was answered (404 where nothing was to be answered).
        public var status: Int

        public var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        }
    }

    /// What the server answers and what it got, shared with its request handler.
    private final class State: Sendable {
        let answers = Mutex<[String: Answer]>([:])
        let received = Mutex<[Received]>([])
    }

    private let state = State()
    private let server: LoopbackServer

    /// The sample files written by others: `Tests/Fixtures/samples`, a verbatim copy of the
    /// project's `../shared/samples` with their MANIFESTs (sources and licences).
    public static let samples = repositoryRoot.appendingPathComponent("Tests/Fixtures/samples")

    public static func sample(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: samples.appendingPathComponent(path)))
    }

    /// `tls`: serve https with it (a certificate the test made) instead of plain http.
    public init(tls: TLSConfiguration? = nil) async throws {
        let state = self.state
        let router = Router()
        let respond: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let body = try await request.body.collect(upTo: 4 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            let answer = state.answers.withLock { $0[request.uri.path] ?? $0["*"] }
            state.received.withLock {
                $0.append(
                    Received(
                        method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? "",
                        headers: headers, authority: request.head.authority, body: Array(buffer: body),
                        status: answer?.status ?? 404))
            }
            guard let answer else {
                return Response(status: .notFound)
            }
            if let delay = answer.delay { try await Task.sleep(for: delay) }
            var fields = HTTPFields()
            fields[.contentType] = answer.contentType
            for (name, value) in answer.headers {
                if let field = HTTPField.Name(name) { fields[field] = value }
            }
            guard let stall = answer.bodyDelay, let first = answer.body.first else {
                return Response(
                    status: HTTPResponse.Status(code: answer.status), headers: fields,
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
            }
            let rest = answer.body.dropFirst()
            return Response(
                status: HTTPResponse.Status(code: answer.status), headers: fields,
                body: ResponseBody(contentLength: answer.body.count) { writer in
                    try await writer.write(ByteBuffer(bytes: [first]))
                    try await Task.sleep(for: stall)
                    try await writer.write(ByteBuffer(bytes: rest))
                    try await writer.finish(nil)
                })
        }
        router.get("**", use: respond)
        router.post("**", use: respond)
        server = try await LoopbackServer(
            router: router, name: "the fake ad server",
            server: try tls.map { try .tls(.http1(), tlsConfiguration: $0) } ?? .http1(),
            scheme: tls == nil ? "http" : "https")
    }

    public var port: Int { server.port }

    /// Stops serving: from then on connections are refused, as from a server that is down.
    public func stop() async {
        await server.stop()
    }

    public func url(_ path: String) -> String { server.url(path) }

    /// `path` answers `answer` from now on; `*` answers every path not given its own.
    public func answer(_ path: String, _ answer: Answer) {
        state.answers.withLock { $0[path] = answer }
    }

    /// `path` answers the bytes of a file of `../shared/samples`.
    public func serveSample(_ path: String, at route: String, contentType: String = "application/json") throws {
        answer(route, Answer(body: try Self.sample(path), contentType: contentType))
    }

    /// The requests for `path` so far, oldest first.
    public func requests(_ path: String) -> [Received] {
        state.received.withLock { $0.filter { $0.path == path } }
    }

    public var allRequests: [Received] { state.received.withLock { $0 } }
}
