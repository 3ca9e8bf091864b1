import Foundation
import Hummingbird
import NIOCore

/// An error answer of the socket API: `{"error": {"code", "message"}}` with its status.
struct APIError: HTTPResponseError, CustomStringConvertible {
    var status: HTTPResponse.Status
    var code: String
    var message: String

    init(_ status: HTTPResponse.Status, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    var description: String { "\(status.code) \(code): \(message)" }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        try JSONResponse.make(Body(error: .init(code: code, message: message)), status: status)
    }

    private struct Body: Encodable {
        struct Detail: Encodable {
            var code: String
            var message: String
        }
        var error: Detail
    }

    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, "bad_request", message) }
    static func notFound(_ message: String) -> APIError { APIError(.notFound, "not_found", message) }
}

/// JSON answers, encoded with sorted keys so that they read the same every time.
enum JSONResponse {
    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        data.append(UInt8(ascii: "\n"))
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Request bodies: JSON only, at most 64 KiB, no unknown fields; errors name the field.
enum JSONRequest {
    static let maximumBytes = 64 * 1024

    static func decode<T: Decodable>(_ type: T.Type, from request: Request, emptyMeans fallback: T? = nil) async throws
        -> T
    {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: maximumBytes)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, "body_too_large", "the request body is over \(maximumBytes / 1024) KiB")
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
        do {
            return try StrictJSON.decode(type, from: Data(buffer: body))
        } catch let failure as StrictJSON.Failure {
            throw APIError(.badRequest, "bad_request", failure.description)
        }
    }
}
