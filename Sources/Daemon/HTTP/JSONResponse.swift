import Foundation
import Hummingbird
import NIOCore
import SharedTypes

/// JSON answers, in the wire format (`WireFormat`): snake_case keys, sorted, the same every time.
enum JSONResponse {
    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
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
