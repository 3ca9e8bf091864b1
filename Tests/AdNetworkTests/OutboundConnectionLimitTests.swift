import NIOCore
import TestSupport
import Testing

@testable import OutboundHTTP

/// The client's cap on connections to one origin: a burst past it waits for a connection
/// rather than opening one per request, and a request that waits ends at its deadline or when
/// cancelled.
struct OutboundConnectionLimitTests {
    /// Twelve requests at once to a server that closes each connection at its second request:
    /// never more than the cap's 3 connections open, and every request answered (those asked
    /// on a connection the server then closed, again on a new one).
    @Test func aBurstToOneOriginOpensNoMoreConnectionsThanTheCapAndAllAreAnswered() async throws {
        let server = try await ClosingServer()
        let client = OutboundClient(configuration: .init(maximumPerOrigin: 3))
        let url = "http://127.0.0.1:\(server.port)/ask"
        let bodies = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await client.execute(OutboundClientTests.get(url), deadline: OutboundClientTests.deadline(20))
                        .body
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(bodies == Array(repeating: Array("ok".utf8), count: 12))
        #expect(server.mostOpen <= 3, "\(server.mostOpen) connections open at once")
        #expect(server.connections >= 3, "the cap's connections were all used: \(server.connections)")
        await server.stop()
    }

    /// With the one connection allowed busy on a slow answer, a second request waits: it ends
    /// at its own deadline, a third when its task is cancelled, and neither opened a connection.
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
