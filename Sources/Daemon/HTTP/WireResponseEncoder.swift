import Hummingbird
import NIOCore
import SharedTypes

/// The request context's response encoder: every answer in the wire format (`WireFormat`),
/// JSON with snake_case keys, sorted, the same every time, and a newline at the end.
struct WireResponseEncoder: ResponseEncoder {
    func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        try Self.response(value)
    }

    /// `value` as an answer with `status`.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try bytes(value))))
    }

    /// `value` in the wire format, with the newline that ends every answer.
    static func bytes(_ value: some Encodable) throws -> [UInt8] {
        var data = try WireFormat.encoder().encode(value)
        data.append(UInt8(ascii: "\n"))
        return Array(data)
    }
}
