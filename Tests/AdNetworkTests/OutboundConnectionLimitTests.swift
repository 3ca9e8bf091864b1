import NIOCore
import TestSupport
import Testing

@testable import OutboundHTTP

/// The client's cap on connections to one origin: a burst past it waits for a connection
/// rather than opening one per request, a connection that ends an exchange goes to the request
/// waiting longest, and a request that waits ends at its deadline or when cancelled.
struct OutboundConnectionLimitTests {
    /// `count` GETs of `url` at once, each given 20 s; their bodies.
    static func burst(_ count: Int, to url: String, on client: OutboundClient) async throws -> [[UInt8]] {
        try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<count {
                group.addTask {
                    try await client.execute(OutboundClientTests.get(url), deadline: OutboundClientTests.deadline(20))
                        .body
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// Twelve requests at once, three connections allowed: never more open at the server, all
    /// twelve answered over them.
    @Test func aBurstToOneOriginOpensNoMoreConnectionsThanTheCap() async throws {
        let server = try await RawHTTPServer(closing: false, delay: .milliseconds(20))
        let client = OutboundClient(configuration: .init(maximumPerOrigin: 3))
        let bodies = try await Self.burst(12, to: "http://127.0.0.1:\(server.port)/ask", on: client)
        #expect(bodies == Array(repeating: Array("ok".utf8), count: 12))
        #expect(
            server.mostOpen <= 3 && server.connections <= 3,
            "\(server.connections) connections, \(server.mostOpen) at once")
        await server.stop()
    }

    /// One connection allowed and five requests: each exchange that ends hands the connection to
    /// the next request at once (none waits for a kept connection to time out).
    @Test func aConnectionThatEndsAnExchangeGoesToTheNextWaitingRequest() async throws {
        let server = try await RawHTTPServer(closing: false, delay: .milliseconds(20))
        let client = OutboundClient(configuration: .init(maximumPerOrigin: 1))
        let url = "http://127.0.0.1:\(server.port)/ask"
        let bodies = try await Self.burst(5, to: url, on: client)
        #expect(bodies.count == 5 && server.connections == 1 && server.requests.count == 5)
        #expect(client.openConnections(to: url) == 1 && client.idleConnections(to: url) == 1)
        await server.stop()
    }

    /// A server that closes every kept connection at its next request: each GET asked there
    /// again takes the room of a kept connection, and all twelve are answered.
    @Test func getsAskedAgainAtTheCapTakeTheRoomOfKeptConnections() async throws {
        let server = try await RawHTTPServer()
        let client = OutboundClient(configuration: .init(maximumPerOrigin: 3))
        let url = "http://127.0.0.1:\(server.port)/ask"
        let bodies = try await Self.burst(12, to: url, on: client)
        #expect(bodies == Array(repeating: Array("ok".utf8), count: 12))
        // What the client counts open is what the server holds: no room lost or counted twice.
        _ = try await eventually { client.openConnections(to: url) == server.openNow ? true : nil }
        #expect(server.openNow <= 3 && server.openNow > 0, "\(server.openNow) open")
        await server.stop()
    }

    /// With the one connection allowed busy on a slow answer, a second request waits: it ends
    /// at its own deadline, a third when its task is cancelled, and neither is sent.
    @Test func aRequestWaitingForAConnectionEndsAtItsDeadlineOrWhenCancelled() async throws {
        let server = try await FakeAdServer()
        server.answer("/slow", .init(body: Array("late".utf8), delay: .seconds(20)))
        let client = OutboundClient(configuration: .init(maximumPerOrigin: 1))
        let url = server.url("/slow")
        let busy = Task {
            await OutboundClientTests.failure {
                _ = try await client.execute(OutboundClientTests.get(url), deadline: OutboundClientTests.deadline(30))
            }
        }
        _ = try await eventually { server.requests("/slow").isEmpty ? nil : true }
        let late = await OutboundClientTests.failure {
            _ = try await client.execute(OutboundClientTests.get(url), deadline: .now() + .milliseconds(200))
        }
        #expect(late == .deadlineExceeded)
        #expect(client.waitingRequests(to: url) == 0, "the late one waits no more")
        let waiting = Task {
            await OutboundClientTests.failure {
                _ = try await client.execute(OutboundClientTests.get(url), deadline: OutboundClientTests.deadline(30))
            }
        }
        _ = try await eventually { client.waitingRequests(to: url) == 1 ? true : nil }
        waiting.cancel()
        #expect(await waiting.value == .cancelled)
        #expect(server.requests("/slow").count == 1, "the waiting requests were never sent")
        #expect(client.openConnections(to: url) == 1)
        busy.cancel()
        #expect(await busy.value == .cancelled)
        _ = try await eventually { client.openConnections(to: url) == 0 ? true : nil }
    }
}
