import AsyncHTTPClient
import Foundation
import Mediation
import NIOCore
import NIOHTTP1

/// Fetches trackers and ad images over HTTP(S) with the daemon's shared HTTP client: 5 s per
/// fetch, bodies up to 4 MiB.
struct HTTPAdFetcher: AdFetcher {
    static let maximumBytes = 4 << 20

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func fetch(_ url: String) async throws -> [UInt8] {
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? "") else {
            throw Failure(description: "not an http(s) URL: \(url)")
        }
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        guard (200..<300).contains(response.status.code) else {
            throw Failure(description: "\(url) answered \(response.status.code)")
        }
        return Array(buffer: try await response.body.collect(upTo: Self.maximumBytes))
    }
}
