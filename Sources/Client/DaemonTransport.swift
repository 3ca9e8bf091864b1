import AsyncHTTPClient
import FoundationEssentials
import NIOCore
import NIOHTTP1
import NIOPosix

/// How a client's requests reach the daemon: its Unix socket, or in the tests its routes
/// in-process.
public protocol DaemonTransport: Sendable {
    /// Sends one request with `headers` and answers whatever the daemon answers; throws only
    /// when it does not.
    func send(_ method: HTTPMethod, _ path: String, body: Data?, headers: [(String, String)], timeout: TimeAmount)
        async throws -> DaemonClient.Reply
}

/// HTTP over the daemon's Unix socket, through one pooled client.
struct UnixSocketTransport: DaemonTransport {
    let socketPath: String
    let client: HTTPClient

    func send(_ method: HTTPMethod, _ path: String, body: Data?, headers: [(String, String)], timeout: TimeAmount)
        async throws -> DaemonClient.Reply
    {
        let url = try self.url(path)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let response = try await client.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: 16 << 20)
            var headers: [String: String] = [:]
            for header in response.headers { headers[header.name.lowercased()] = header.value }
            return DaemonClient.Reply(
                status: response.status.code, body: Data(body.readableBytesView), headers: headers)
        } catch let error as HTTPClientError where error == .connectTimeout {
            throw ClientError.unavailable(socketPath)
        } catch let error as IOError where error.errnoCode == ECONNREFUSED || error.errnoCode == ENOENT {
            // A socket file nobody listens on: a daemon that died without removing it.
            throw ClientError.unavailable(socketPath)
        } catch let error as IOError where error.errnoCode == EACCES || error.errnoCode == EPERM {
            throw ClientError.permissionDenied(socketPath)
        } catch {
            throw ClientError("the daemon on \(socketPath) did not answer: \(error)")
        }
    }

    /// The URL of `path` on the socket; throws when no daemon's socket is there.
    func url(_ path: String) throws -> URL {
        guard let url = URL(httpURLWithSocketPath: socketPath, uri: path) else {
            throw ClientError("'\(socketPath)' cannot be used as a socket path")
        }
        guard FileManager.default.fileExists(atPath: socketPath) else {
            throw ClientError.unavailable(socketPath)
        }
        return url
    }
}
