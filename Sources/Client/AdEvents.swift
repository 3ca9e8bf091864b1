import API
import AsyncHTTPClient
import FoundationEssentials
import NIOCore

/// One event of `GET /v1/events`: its id, name and JSON object.
public struct ServerSentAdEvent: Sendable {
    /// The SSE `id:`, increasing across the daemon's events; nil when the stream gave none.
    public var id: String?
    public var name: String
    public var data: String

    public init(id: String? = nil, name: String, data: String) {
        self.id = id
        self.name = name
        self.data = data
    }
}

extension DaemonClient {
    /// Follows the daemon's event stream (filtered by ad unit and ad id when given) until the
    /// daemon closes it or the caller stops iterating. Returns once the daemon has subscribed
    /// the stream, so that no event after this call is missed; with `lastEventID` (the `id` of
    /// the last event seen), the events after it that the daemon kept come first.
    public func events(adUnit: String? = nil, adID: String? = nil, lastEventID: String? = nil) async throws
        -> AdEventStream
    {
        let query = [adUnit.map { ("ad_unit", $0) }, adID.map { ("ad_id", $0) }].compactMap { $0 }
        return try await serverSentEvents(Endpoints.events, query: query, lastEventID: lastEventID)
    }

    /// Follows one of the daemon's Server-Sent Event streams (`endpoint`, with `query`) as
    /// `events` does.
    func serverSentEvents(_ endpoint: Endpoint, query: [(String, String)], lastEventID: String? = nil) async throws
        -> AdEventStream
    {
        let path = endpoint.path(query: query)
        guard let socket = socketTransport else { throw ClientError("the event stream needs the daemon's socket") }
        let url = try socket.url(path)
        var request = HTTPClientRequest(url: url.absoluteString)
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
        if let app { request.headers.add(name: APIHeaders.app, value: app) }
        let response = try await socket.client.execute(request, timeout: .hours(24))
        guard response.status == .ok else {
            throw ClientError("the daemon answered \(response.status.code) to \(path)")
        }
        var buffers = response.body.makeAsyncIterator()
        // The daemon's first bytes are a comment saying it subscribed the stream.
        guard let first = try await buffers.next() else { throw ClientError("the event stream ended at once") }
        var reader = EventStreamReader()
        return AdEventStream(buffers: buffers, reader: reader, pending: reader.read(first.readableBytesView))
    }
}

/// The events of one `GET /v1/events` response, read as the caller asks for them: it ends with
/// the response, and the connection closes when the caller drops it. It is read once: a second
/// iteration goes on where the first stopped.
public final class AdEventStream: AsyncSequence, AsyncIteratorProtocol {
    public typealias Element = ServerSentAdEvent
    private var buffers: HTTPClientResponse.Body.AsyncIterator
    private var reader: EventStreamReader
    private var pending: [ServerSentAdEvent]

    fileprivate init(
        buffers: HTTPClientResponse.Body.AsyncIterator, reader: EventStreamReader, pending: [ServerSentAdEvent]
    ) {
        self.buffers = buffers
        self.reader = reader
        self.pending = pending
    }

    public func makeAsyncIterator() -> AdEventStream { self }

    public func next() async throws -> ServerSentAdEvent? {
        while pending.isEmpty {
            guard let buffer = try await buffers.next() else { return nil }
            pending = reader.read(buffer.readableBytesView)
        }
        return pending.removeFirst()
    }
}

/// Reads the `text/event-stream` lines the daemon writes: `id:`, `event:` and `data:` fields, `:`
/// comments, a blank line ending each event. (mattt/EventSource, the package for this, does not
/// build on Linux: it needs URLSession.bytes.)
struct EventStreamReader {
    private var line: [UInt8] = []
    private var id: String?
    private var name = ""
    private var data: [String] = []

    mutating func read(_ bytes: some Sequence<UInt8>) -> [ServerSentAdEvent] {
        var events: [ServerSentAdEvent] = []
        for byte in bytes {
            guard byte == UInt8(ascii: "\n") else {
                line.append(byte)
                continue
            }
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            let text = String(decoding: line, as: UTF8.self)
            line.removeAll(keepingCapacity: true)
            if text.isEmpty {
                if !data.isEmpty || !name.isEmpty {
                    events.append(
                        ServerSentAdEvent(
                            id: id, name: name.isEmpty ? "message" : name, data: data.joined(separator: "\n")))
                }
                id = nil
                name = ""
                data = []
            } else if text.hasPrefix(":") {
                continue
            } else if let colon = text.firstIndex(of: ":") {
                var value = text[text.index(after: colon)...]
                if value.hasPrefix(" ") { value = value.dropFirst() }
                switch text[..<colon] {
                case "id": id = String(value)
                case "event": name = String(value)
                case "data": data.append(String(value))
                default: break
                }
            }
        }
        return events
    }
}
