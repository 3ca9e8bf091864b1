import Bench
import Foundation
import HummingbirdTLS

/// A certificate authority made for one test with the openssl command, and a server
/// certificate it signed for 127.0.0.1: what a recipient's private `ca_file` trusts.
public struct TestCertificateAuthority: Sendable {
    /// The authority's certificate (PEM): the `ca_file`.
    public let certificateFile: String
    public let serverCertificateFile: String
    public let serverKeyFile: String

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Makes the authority and the server's key and certificate in `directory`.
    public init(in directory: TemporaryDirectory, name: String = "test-ca") async throws {
        certificateFile = directory.path("\(name).pem")
        serverCertificateFile = directory.path("\(name)-server.pem")
        serverKeyFile = directory.path("\(name)-server.key")
        let caKey = directory.path("\(name).key")
        let request = directory.path("\(name)-server.csr")
        let extensions = directory.path("\(name)-server.ext")
        try "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n".write(
            toFile: extensions, atomically: true, encoding: .utf8)
        try await Self.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", caKey,
            "-out", certificateFile, "-days", "2", "-subj", "/CN=secure-signals \(name)",
        ])
        try await Self.openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", serverKeyFile,
            "-out", request, "-subj", "/CN=127.0.0.1",
        ])
        try await Self.openssl([
            "x509", "-req", "-in", request, "-CA", certificateFile, "-CAkey", caKey, "-CAcreateserial",
            "-out", serverCertificateFile, "-days", "2", "-extfile", extensions,
        ])
    }

    /// A server configuration presenting the certificate this authority signed.
    public func serverTLS() throws -> TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(serverCertificateFile).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: serverKeyFile, format: .pem)))
    }

    /// Runs openssl to its end without blocking a thread: the tests share a cooperative pool as
    /// wide as the machine's cores, and a blocked thread stalls every other test's timers.
    private static func openssl(_ arguments: [String]) async throws {
        let errorsFile = FileManager.default.temporaryDirectory.appendingPathComponent("openssl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: errorsFile) }
        let ended = try await ChildProcess.run(
            "/usr/bin/openssl", arguments, standardError: .file(errorsFile.path))
        let said = (try? Data(contentsOf: errorsFile)) ?? Data()
        guard ended == .exited(0) else {
            throw Failure(
                description: "openssl \(arguments[0]) failed: \(String(decoding: said, as: UTF8.self))")
        }
    }
}
