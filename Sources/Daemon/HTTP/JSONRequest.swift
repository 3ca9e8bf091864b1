import Foundation
import Hummingbird
import NIOCore
import SharedTypes

/// Request bodies: JSON only, at most 64 KiB, no unknown fields; errors name the field.
enum JSONRequest {
    static let maximumBytes = 64 * 1024

    /// The body decoded strictly (`StrictJSON`), or `fallback` for an empty body when given.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, emptyMeans fallback: T? = nil) async throws
        -> T
    {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: maximumBytes)
        } catch is NIOTooManyBytesError {
            throw APIError.bodyTooLarge
        }
        if body.readableBytes == 0, let fallback { return fallback }
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        guard contentType.hasPrefix("application/json") else {
            throw APIError(
                .unsupportedMediaType, "unsupported_media_type",
                contentType.isEmpty
                    ? "send the body as JSON with Content-Type: application/json"
                    : "the body must be application/json, not \(contentType)")
        }
        return try StrictJSON.decode(type, from: Data(buffer: body))
    }
}
