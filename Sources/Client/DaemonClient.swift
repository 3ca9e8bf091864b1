import API
import AsyncHTTPClient
import FoundationEssentials
import NIOCore
import NIOHTTP1
import NIOPosix
import SharedTypes

/// The socket API from the client's side: what the CLI and the benchmarks speak.
public struct DaemonClient: Sendable {
    /// The daemon's socket; nil for a client of another transport.
    public let socketPath: String?
    private let transport: any DaemonTransport
    /// The app a broker's requests are for (`Secure-Signals-App`); nil: the app the peer is.
    public var app: String?

    /// A client of the daemon listening on `socketPath`.
    public init(socketPath: String, client: HTTPClient = DaemonClient.local) {
        self.socketPath = socketPath
        self.transport = UnixSocketTransport(socketPath: socketPath, client: client)
    }

    /// A client whose requests reach the daemon through `transport` (the tests' in-process routes).
    public init(transport: any DaemonTransport) {
        self.socketPath = nil
        self.transport = transport
    }

    /// The socket's transport, for what only a socket carries (the event stream).
    var socketTransport: UnixSocketTransport? { transport as? UnixSocketTransport }

    /// The process-wide client for the daemon's socket. A live daemon accepts at once, so
    /// connecting gives up after a second, not AsyncHTTPClient's default ten; never shut down.
    public static let local: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(1))
        return HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }()

    /// `$SECURE_SIGNALS_SOCKET`, else the daemon's default (`$XDG_RUNTIME_DIR/secure-signals.sock`
    /// or `./.run/secure-signals.sock`), else the packaged service's socket when that exists.
    public static func defaultSocketPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String
    {
        if let path = environment["SECURE_SIGNALS_SOCKET"], !path.isEmpty { return path }
        let userDefault: String
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            userDefault = runtime + "/secure-signals.sock"
        } else {
            userDefault = FileManager.default.currentDirectoryPath + "/.run/secure-signals.sock"
        }
        let service = "/run/secure-signals/secure-signals.sock"
        if !FileManager.default.fileExists(atPath: userDefault), FileManager.default.fileExists(atPath: service) {
            return service
        }
        return userDefault
    }

    /// An answer: its status and body.
    public struct Reply: Sendable {
        public var status: UInt
        public var body: Data
        /// Header fields by lower-case name.
        public var headers: [String: String]

        public init(status: UInt, body: Data, headers: [String: String] = [:]) {
            self.status = status
            self.body = body
            self.headers = headers
        }

        /// This reply when its status is 2xx; else the daemon's error as a `ClientError`.
        public func successful() throws -> Reply {
            guard (200..<300).contains(status) else {
                throw ClientError(
                    apiError.map { "the daemon answered \(status) \($0.code): \($0.message)" }
                        ?? "the daemon answered \(status)")
            }
            return self
        }

        /// The API error's code and message, when the body is one.
        public var apiError: (code: String, message: String)? {
            errorAnswer.map { ($0.error.code, $0.error.message) }
        }

        /// The whole error answer, when the body is one: with a failed load's waterfall.
        public var errorAnswer: APIErrorAnswer? {
            try? WireFormat.decoder().decode(APIErrorAnswer.self, from: body)
        }
    }

    /// Sends `json` (as `contentType`, when given) and answers whatever the daemon answers.
    public func request(
        _ method: HTTPMethod, _ path: String, json: Data? = nil, contentType: String? = "application/json",
        timeout: TimeAmount = .seconds(10)
    ) async throws -> Reply {
        var headers: [(String, String)] = []
        if json != nil, let contentType { headers.append(("Content-Type", contentType)) }
        if let app { headers.append((APIHeaders.app, app)) }
        return try await transport.send(method, path, body: json, headers: headers, timeout: timeout)
    }

    /// Calls `endpoint` with `parameters` in its path's places (`Endpoints.ad`: the ad's id)
    /// and `query`, sending `json`, and answers whatever the daemon answers.
    public func request(
        _ endpoint: Endpoint, _ parameters: String..., query: [(String, String)] = [], json: Data? = nil,
        timeout: TimeAmount = .seconds(10)
    ) async throws -> Reply {
        try await request(
            HTTPMethod(rawValue: endpoint.method.rawValue), endpoint.path(parameters, query: query), json: json,
            timeout: timeout)
    }

    /// A successful JSON answer decoded, or the API's error as a `ClientError`.
    public func call<Answer: Decodable>(
        _ endpoint: Endpoint, _ parameters: String..., query: [(String, String)] = [], json: Data? = nil,
        as type: Answer.Type
    ) async throws -> Answer {
        let path = endpoint.path(parameters, query: query)
        let reply = try await request(HTTPMethod(rawValue: endpoint.method.rawValue), path, json: json).successful()
        do {
            return try WireFormat.decoder().decode(type, from: reply.body)
        } catch {
            throw ClientError("the daemon's answer to \(path) is not what this client expects: \(error)")
        }
    }

    public func health() async throws -> HealthReport {
        try await call(Endpoints.health, as: HealthReport.self)
    }

    public func adapters() async throws -> [AdapterStatus] {
        try await call(Endpoints.adapters, as: AdapterList.self).adapters
    }

    /// `GET /v1/recipients`: each recipient's keys, by name.
    public func recipients() async throws -> [RecipientStatus] {
        try await call(Endpoints.recipients, as: RecipientList.self).recipients
    }

    /// `GET /v1/privacy/decisions`: what this app's privacy state in force lets each adapter,
    /// line item and bidder do now.
    public func privacyDecisions() async throws -> PrivacyDecisions {
        try await call(Endpoints.privacyDecisions, as: PrivacyDecisions.self)
    }

    /// `GET /v1/ad_units`: each unit as this app sees it.
    public func adUnits() async throws -> [AdUnitStatus] {
        try await call(Endpoints.adUnits, as: AdUnitList.self).adUnits
    }

    /// `POST /v1/ads`: the loaded ad; a refusal is a `ClientError` (a failed load's waterfall
    /// is in its reply's `errorAnswer`: `request(Endpoints.loadAd, ...)` gives the reply).
    public func loadAd(_ body: AdLoadBody) async throws -> MediatedAd {
        try await call(Endpoints.loadAd, json: try WireFormat.encoder().encode(body), as: MediatedAd.self)
    }

    /// `GET /v1/ads/{id}`.
    public func ad(_ id: String) async throws -> MediatedAd {
        try await call(Endpoints.ad, id, as: MediatedAd.self)
    }

    public func collect(requestID: String, adapters: [String]? = nil, timeoutMilliseconds: Int? = nil) async throws
        -> CollectionResult
    {
        let body = SignalsBody(requestID: requestID, adapters: adapters, timeoutMilliseconds: timeoutMilliseconds)
        return try await call(Endpoints.signals, json: try WireFormat.encoder().encode(body), as: CollectionResult.self)
    }
}

/// A client-side failure, one line for the user.
public struct ClientError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }

    static func unavailable(_ path: String) -> ClientError {
        ClientError(
            "no daemon listens on \(path) (is secure-signalsd running? --socket or $SECURE_SIGNALS_SOCKET picks another)"
        )
    }

    static func permissionDenied(_ path: String) -> ClientError {
        ClientError(
            "permission denied on \(path): is this user in the socket's group (socket.group), and may it enter the socket's directory?"
        )
    }
}
