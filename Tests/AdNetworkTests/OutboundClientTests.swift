import Foundation
import NIOCore
import TestSupport
import Testing

@testable import OutboundHTTP

/// The daemon's HTTP/1.1 client against a real local server: what it sends, the connections
/// it keeps and gives up, and each way an exchange ends without an answer.
struct OutboundClientTests {
    static func deadline(_ seconds: Int64 = 5) -> NIODeadline { .now() + .seconds(seconds) }

    static func get(_ url: String, maximumBytes: Int = 1 << 20) -> OutboundRequest {
        OutboundRequest(url: url, maximumBytes: maximumBytes)
    }

    static func failure(_ body: () async throws -> Void) async -> OutboundError? { await thrown(body) }

    @Test func aPostCarriesItsHostLengthAndBodyAndTheAnswerComesBackWhole() async throws {
        let server = try await FakeAdServer()
        server.answer("/bid", .init(body: Array("bid".utf8), headers: ["X-Seat": "one"]))
        let client = OutboundClient()
        let body = Array(#"{"id":"1"}"#.utf8)
        let response = try await client.execute(
            OutboundRequest(
                method: .POST, url: server.url("/bid?tag=a%20b"), headers: [("Content-Type", "application/json")],
                body: body, maximumBytes: 1024),
            deadline: Self.deadline())
        #expect(response.status == 200 && response.body == Array("bid".utf8))
        #expect(response.headers.contains { $0.name.lowercased() == "x-seat" && $0.value == "one" })
        let received = try #require(server.requests("/bid").first)
        #expect(received.method == "POST" && received.body == body && received.query == "tag=a%20b")
        #expect(received.authority == "127.0.0.1:\(server.port)")
        #expect(received.headers["content-length"] == "\(body.count)")
    }

    /// Exchanges one after another share one connection: one is kept after each, never two.
    @Test func aConnectionIsKeptBetweenExchangesAndUsedAgain() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(body: Array("ok".utf8), contentType: "text/plain"))
        let client = OutboundClient()
        for round in 1...3 {
            _ = try await client.execute(Self.get(server.url("/\(round)")), deadline: Self.deadline())
            #expect(client.idleConnections(to: server.url("/")) == 1)
        }
        #expect(server.allRequests.count == 3)
    }

    /// A kept connection is closed when left unused for the idle timeout.
    @Test func aKeptConnectionIsClosedAfterTheIdleTimeout() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(body: Array("ok".utf8), contentType: "text/plain"))
        let client = OutboundClient(configuration: .init(idleTimeout: .milliseconds(300)))
        _ = try await client.execute(Self.get(server.url("/x")), deadline: Self.deadline())
        #expect(client.idleConnections(to: server.url("/")) == 1, "kept first")
        _ = try await eventually(timeout: .seconds(10)) {
            client.idleConnections(to: server.url("/")) == 0 ? true : nil
        }
    }

    /// A server that closes a kept connection as the next request arrives, unanswered: a GET is
    /// asked again on a new connection; a POST, which the server may have acted on, is not.
    @Test func aGetOnAConnectionClosedUnansweredIsAskedAgainAndAPostIsNot() async throws {
        let server = try await RawHTTPServer()
        let client = OutboundClient()
        let url = "http://127.0.0.1:\(server.port)/"
        for path in ["first", "second"] {
            let answer = try await client.execute(Self.get(url + path), deadline: Self.deadline())
            #expect(answer.body == Array("ok".utf8))
        }
        #expect(server.requests == ["GET /first HTTP/1.1", "GET /second HTTP/1.1", "GET /second HTTP/1.1"])
        #expect(server.connections == 2)
        let post = await Self.failure {
            _ = try await client.execute(
                OutboundRequest(method: .POST, url: url + "bid", maximumBytes: 64), deadline: Self.deadline())
        }
        #expect(post == .closed)
        #expect(server.requests.filter { $0.hasPrefix("POST") } == ["POST /bid HTTP/1.1"], "sent once")
        await server.stop()
    }

    /// A cancelled task's exchange ends at once, not at its deadline.
    @Test func aCancelledExchangeEndsAtOnce() async throws {
        let server = try await FakeAdServer()
        server.answer("/slow", .init(body: Array("late".utf8), delay: .seconds(20)))
        let client = OutboundClient()
        let exchange = Task {
            await Self.failure {
                _ = try await client.execute(Self.get(server.url("/slow")), deadline: Self.deadline(30))
            }
        }
        _ = try await eventually { server.requests("/slow").isEmpty ? nil : true }
        exchange.cancel()
        #expect(await exchange.value == .cancelled)
    }

    /// An answer over the limit, a body that stalls past the deadline: each ends its exchange,
    /// and the connection is not kept with half an answer on it.
    @Test func aBodyOverItsLimitAndAStalledBodyEndTheExchangeAndTheConnection() async throws {
        let server = try await FakeAdServer()
        server.answer("/big", .init(body: [UInt8](repeating: 0x61, count: 4097)))
        server.answer("/stall", .init(body: Array("stalled".utf8), bodyDelay: .seconds(3)))
        let client = OutboundClient()
        let big = await Self.failure {
            _ = try await client.execute(Self.get(server.url("/big"), maximumBytes: 4096), deadline: Self.deadline())
        }
        #expect(big == .tooLarge)
        let stalled = await Self.failure {
            _ = try await client.execute(Self.get(server.url("/stall")), deadline: .now() + .milliseconds(300))
        }
        #expect(stalled == .deadlineExceeded)
        #expect(client.idleConnections(to: server.url("/")) == 0)
    }

    @Test func aRefusedConnectionAndAnUntrustedServerFailSayingWhy() async throws {
        let server = try await FakeAdServer()
        let port = server.port
        await server.stop()
        let client = OutboundClient()
        let refused = await Self.failure {
            _ = try await client.execute(Self.get("http://127.0.0.1:\(port)/"), deadline: Self.deadline())
        }
        #expect(refused == .refused)

        let directory = try TemporaryDirectory()
        let authority = try await TestCertificateAuthority(in: directory)
        let secure = try await FakeAdServer(tls: try authority.serverTLS())
        secure.answer("*", .init(body: Array("secret".utf8), contentType: "text/plain"))
        let trusted = try await client.execute(
            OutboundRequest(url: secure.url("/x"), maximumBytes: 64, caFile: authority.certificateFile),
            deadline: Self.deadline())
        #expect(trusted.status == 200 && trusted.body == Array("secret".utf8), "\(trusted)")
        let untrusted = await Self.failure {
            _ = try await client.execute(Self.get(secure.url("/")), deadline: Self.deadline())
        }
        guard case .transport(let why) = untrusted else {
            Issue.record("an unknown authority is a transport failure, not \(String(describing: untrusted))")
            return
        }
        #expect(why.lowercased().contains("certificate"), "\(why)")
    }

    /// A `ca_file` replaced in place (a new authority, then a reload) is trusted from the next
    /// connection on, not the file as it was first read.
    @Test func aCAFileChangedInPlaceIsReadAgain() async throws {
        let directory = try TemporaryDirectory()
        let old = try await TestCertificateAuthority(in: directory, name: "old-ca")
        let new = try await TestCertificateAuthority(in: directory, name: "new-ca")
        let server = try await FakeAdServer(tls: try new.serverTLS())
        server.answer("*", .init(body: Array("keys".utf8), contentType: "text/plain"))
        let caFile = directory.path("ca_file.pem")
        try FileManager.default.copyItem(atPath: old.certificateFile, toPath: caFile)
        let client = OutboundClient()
        let request = OutboundRequest(url: server.url("/keys"), maximumBytes: 64, caFile: caFile)
        let refused = await Self.failure { _ = try await client.execute(request, deadline: Self.deadline()) }
        #expect(refused != nil, "signed by another authority")
        try FileManager.default.removeItem(atPath: caFile)
        try FileManager.default.copyItem(atPath: new.certificateFile, toPath: caFile)
        #expect(try await client.execute(request, deadline: Self.deadline()).body == Array("keys".utf8))
    }

    @Test func whereARequestGoesIsItsOriginItsTargetAndItsHost() throws {
        let bid = try #require(Destination("https://Ads.Example:8443/a%2Fb/bid?x=1&y=%20", caFile: "/ca.pem"))
        #expect(bid.origin == .init(secure: true, host: "Ads.Example", port: 8443, caFile: "/ca.pem"))
        #expect(bid.target == "/a%2Fb/bid?x=1&y=%20" && bid.hostHeader == "Ads.Example:8443")
        let bare = try #require(Destination("http://[::1]", caFile: "/ca.pem"))
        #expect(bare.origin == .init(secure: false, host: "::1", port: 80, caFile: nil))
        #expect(bare.target == "/" && bare.hostHeader == "[::1]")
        for url in ["ftp://example.com/", "http://", "/relative", "http://example.com:0/", "example.com"] {
            #expect(Destination(url, caFile: nil) == nil, "\(url)")
        }
    }
}
