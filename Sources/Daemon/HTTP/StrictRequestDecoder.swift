import FoundationEssentials
import Hummingbird
import NIOCore
import SharedTypes

/// The request context's request decoder: JSON only, at most 64 KiB, no unknown fields, each
/// error naming its field (`StrictJSON`). An empty body is `{}`, so that a body whose every
/// field is optional may be left out.
struct StrictRequestDecoder: RequestDecoder {
    static let maximumBytes = 64 * 1024

    func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: Self.maximumBytes)
        } catch is NIOTooManyBytesError {
            throw APIError.bodyTooLarge
        }
        if body.readableBytes == 0 { return try StrictJSON.decode(type, from: Data("{}".utf8)) }
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        guard contentType.hasPrefix("application/json") else {
            throw APIError(
                .unsupportedMediaType, .unsupportedMediaType,
                contentType.isEmpty
                    ? "send the body as JSON with Content-Type: application/json"
                    : "the body must be application/json, not \(contentType)")
        }
        return try StrictJSON.decode(type, from: Data(buffer: body))
    }
}
