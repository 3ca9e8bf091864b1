import Foundation
import Mediation
import TestSupport
import Testing

@testable import Daemon

/// The daemon's one HTTP client for ad servers, against a real local server: redirects up to
/// its limit, a cap on bodies, each exchange under its timeout.
struct HTTPAdFetcherTests {
    /// What `body` threw, as the fetcher's error.
    static func failure(_ body: () async throws -> Void) async -> AdServerError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? AdServerError
        }
    }

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
}
