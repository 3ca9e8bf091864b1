import NIOSSL
import Synchronization

/// One TLS client context per trust: the system's certificate authorities, or a PEM file's.
/// Made on first use and kept, since loading trust roots costs far more than a handshake.
final class TLSContexts: Sendable {
    private let contexts = Mutex<[String: NIOSSLContext]>([:])

    func context(trusting caFile: String?) throws -> NIOSSLContext {
        let key = caFile ?? ""
        if let context = contexts.withLock({ $0[key] }) { return context }
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let caFile { configuration.trustRoots = .file(caFile) }
        let context = try NIOSSLContext(configuration: configuration)
        contexts.withLock { $0[key] = context }
        return context
    }
}
