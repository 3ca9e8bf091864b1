import Foundation
import Mediation
import TestSupport
import Testing

@testable import Daemon

/// The daemon's one HTTP client for ad servers, against a real local server: redirects up to
/// its limit, a cap on bodies, each exchange under its timeout.
struct HTTPAdFetcherTests {
    /// What `body` threw, as the fetcher's error.
    static func failure(_ body: () async throws -> Void) async -> AdServerError? { await thrown(body) }

    @Test func redirectsAreFollowedUpToThreeAndNoFurther() async throws {
        let server = try await FakeAdServer()
        for hop in 1...5 {
            server.answer("/hop\(hop)", .init(status: 302, headers: ["Location": server.url("/hop\(hop + 1)")]))
        }
        server.answer("/hop6", .init(body: Array("landed".utf8), contentType: "text/plain"))
        let fetcher = HTTPAdFetcher()
        #expect(String(decoding: try await fetcher.fetch(server.url("/hop3")), as: UTF8.self) == "landed")
        let tooMany = await Self.failure { _ = try await fetcher.fetch(server.url("/hop2")) }
        #expect(tooMany?.kind == .tooManyRedirects, "\(String(describing: tooMany))")
    }

    @Test func aBodyOverFourMebibytesAndASlowServerAreRefused() async throws {
        let server = try await FakeAdServer()
        server.answer("/big", .init(body: [UInt8](repeating: 0x61, count: HTTPAdFetcher.maximumBytes + 1)))
        server.answer("/slow", .init(body: Array("late".utf8), delay: .seconds(2)))
        let fetcher = HTTPAdFetcher()
        let big = await Self.failure { _ = try await fetcher.fetch(server.url("/big")) }
        #expect(big?.kind == .tooLarge, "\(String(describing: big))")
        let slow = await Self.failure { _ = try await fetcher.fetch(server.url("/slow"), timeout: .milliseconds(200)) }
        #expect(slow?.kind == .timeout, "\(String(describing: slow))")
        let refused = await Self.failure { _ = try await fetcher.fetch("ftp://example.com/x?secret=1") }
        #expect(refused == AdServerError(.invalidURL, "not an http(s) URL: ftp://example.com/x"))
    }

    /// A server that refuses the connection ends the exchange within the connect timeout, saying
    /// so in a line (not as a reset with errno 111, as AsyncHTTPClient once did).
    @Test func aRefusedConnectionFailsAtOnceNamingTheServer() async throws {
        let server = try await FakeAdServer()
        let port = server.port
        await server.stop()
        let clock = ContinuousClock()
        let started = clock.now
        let refused = await Self.failure {
            _ = try await HTTPAdFetcher().fetch("http://127.0.0.1:\(port)/bid?key=secret", timeout: .seconds(20))
        }
        #expect(refused == AdServerError(.transport, "connection refused by 127.0.0.1:\(port)"))
        // At once: a refused connection is not tried again until the 20 s given run out.
        #expect(clock.now - started < .seconds(10), "\(clock.now - started)")
        let refusedV6 = await Self.failure {
            _ = try await HTTPAdFetcher().fetch("http://[::1]:\(port)/bid", timeout: .seconds(20))
        }
        // An IPv6 literal is named in brackets, where loopback has IPv6 (/proc/net/if_inet6 lists ::1).
        let inet6 = (try? String(contentsOfFile: "/proc/net/if_inet6", encoding: .utf8)) ?? ""
        if inet6.contains("00000000000000000000000000000001") {
            #expect(refusedV6?.message == "connection refused by [::1]:\(port)", "\(String(describing: refusedV6))")
        }
    }

    /// A bid request, an ad tag: redirected within their server they follow (307 keeps the
    /// POST and its body); redirected to another they stop, and the other server never sees
    /// the request. Tracker pings and images follow any redirect.
    @Test func aRedirectToAnotherServerIsFollowedOnlyWhereTheRequestAllowsIt() async throws {
        let bidder = try await FakeAdServer()
        let stranger = try await FakeAdServer()
        stranger.answer("*", .init(body: Array("stranger".utf8), contentType: "text/plain"))
        bidder.answer("/moved", .init(status: 307, headers: ["Location": "/bid"]))
        bidder.answer("/bid", .init(body: Array("bid".utf8), contentType: "text/plain"))
        bidder.answer("/away", .init(status: 307, headers: ["Location": stranger.url("/collect?who=x")]))
        let fetcher = HTTPAdFetcher()
        let body = Array(#"{"id":"1"}"#.utf8)
        let moved = try await fetcher.send(
            AdServerRequest(method: .post, url: bidder.url("/moved"), body: body, timeout: .seconds(5)))
        #expect(moved.status == 200 && String(decoding: moved.body, as: UTF8.self) == "bid")
        #expect(bidder.requests("/bid").first?.method == "POST" && bidder.requests("/bid").first?.body == body)

        let away = await Self.failure {
            _ = try await fetcher.send(
                AdServerRequest(method: .post, url: bidder.url("/away?token=secret"), body: body, timeout: .seconds(5)))
        }
        #expect(away?.kind == .redirectRefused, "\(String(describing: away))")
        #expect(away?.message.contains("secret") == false && away?.message.contains("who=x") == false)
        #expect(stranger.allRequests.isEmpty, "nothing reaches a server nobody configured")
        let tag = await Self.failure { _ = try await fetcher.fetch(bidder.url("/away")) }
        #expect(tag?.kind == .redirectRefused)

        let ping = try await fetcher.send(AdServerRequest(url: bidder.url("/away"), redirects: .anyOrigin))
        #expect(ping.status == 200 && stranger.requests("/collect").count == 1)
    }

    @Test func aRedirectLoopEndsAtOnce() async throws {
        let server = try await FakeAdServer()
        server.answer("/a", .init(status: 302, headers: ["Location": "/b"]))
        server.answer("/b", .init(status: 302, headers: ["Location": "/a"]))
        let loop = await Self.failure { _ = try await HTTPAdFetcher().fetch(server.url("/a")) }
        #expect(loop?.kind == .tooManyRedirects && loop?.message.contains("in a loop") == true)
        #expect(server.requests("/a").count == 1 && server.requests("/b").count == 1)
    }

    /// 200 KB of zeroes in 230 bytes of gzip: refused, saying why.
    @Test func aDecompressionBombIsRefusedSayingSo() async throws {
        let bomb = try #require(
            Data(
                base64Encoded:
                    "H4sIAAAAAAACA+3BMQEAAADCoErrn84M/kABAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAK8BlH0jNkANAwA="
            ))
        let server = try await FakeAdServer()
        server.answer("/bomb", .init(body: Array(bomb), headers: ["Content-Encoding": "gzip"]))
        let refused = await Self.failure { _ = try await HTTPAdFetcher().fetch(server.url("/bomb?key=secret")) }
        #expect(
            refused
                == AdServerError(
                    .tooLarge,
                    "\(server.url("/bomb")) answered a compressed body that inflates to more than 20 times its size "
                        + "(a decompression bomb): refused"))
    }

    /// One origin is a scheme, a host and a port, the scheme's own when left out; nothing else
    /// (user info, another port, another host, another scheme) passes.
    @Test func anOriginIsSchemeHostAndPortWithTheDefaultPortsFilledIn() throws {
        func holds(_ next: String, from current: String) throws -> Bool {
            SameOrigin.holds(try #require(SameOrigin.resolve(next, against: current)), from: current)
        }
        #expect(try holds("http://Bid.Example:80/x", from: "http://bid.example/a"))
        #expect(try holds("https://bid.example/x", from: "https://bid.example:443/a"))
        #expect(try holds("/x?y=1", from: "http://bid.example:8080/a"))
        #expect(try !holds("http://bid.example:8081/x", from: "http://bid.example:8080/a"))
        #expect(try !holds("https://bid.example/x", from: "http://bid.example/a"))
        #expect(try !holds("//other.example/x", from: "http://bid.example/a"))
        #expect(try !holds("http://bid.example@other.example/x", from: "http://bid.example/a"))
        #expect(try !holds("http://bid.example.other.example/x", from: "http://bid.example/a"))
    }
}
