import FoundationEssentials
import NIOSSL
import Synchronization

/// One TLS client context per trust: the system's certificate authorities, or a PEM file's as
/// it is now. Made on first use and kept, since loading trust roots costs far more than a
/// handshake; a file changed in place (a new `ca_file` and a reload) makes a new one. Made
/// under the lock: the first requests of a burst to an https server wait for one context
/// rather than each loading the trust roots.
final class TLSContexts: Sendable {
    /// By file ("" for the system's), with the version of the file it was made from.
    private let contexts = Mutex<[String: (version: String, context: NIOSSLContext)]>([:])

    func context(trusting caFile: String?) throws -> NIOSSLContext {
        let key = caFile ?? ""
        let version = caFile.map(Self.version(of:)) ?? ""
        return try contexts.withLock { contexts in
            if let kept = contexts[key], kept.version == version { return kept.context }
            var configuration = TLSConfiguration.makeClientConfiguration()
            if let caFile { configuration.trustRoots = .file(caFile) }
            let context = try NIOSSLContext(configuration: configuration)
            contexts[key] = (version, context)
            return context
        }
    }

    /// What tells one content of `file` from the next: its size and modification time.
    private static func version(of file: String) -> String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: file)
        let size = attributes?[.size] as? Int ?? -1
        let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return "\(size) \(modified)"
    }
}
