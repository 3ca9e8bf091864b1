import Foundation
import SignalCrypto

/// The demo recipient, as a bidder holds it: the private key (copied to a 0600 file, since
/// git keeps no modes) and an opener for its envelopes.
public struct DemoRecipient: Sendable {
    public static let keyConfigPath = repositoryRoot.appendingPathComponent("keys/demo/demo.keyconfig").path

    public let opener: EnvelopeOpener

    public init(in directory: TemporaryDirectory) throws {
        let key = directory.path("demo.key.pem")
        if !FileManager.default.fileExists(atPath: key) {
            try FileManager.default.copyItem(
                atPath: repositoryRoot.appendingPathComponent("keys/demo/demo.key.pem").path, toPath: key)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        }
        let privateKey = try KeyFiles.readPrivateKey(at: key)
        let config = try KeyFiles.readKeyConfigs(at: Self.keyConfigPath)[0]
        opener = try EnvelopeOpener(privateKey: privateKey, keyConfig: config)
    }

    /// The payload JSON inside an envelope.
    public func open(_ envelope: String) throws -> [String: Any] {
        let opened = try opener.open(envelope)
        return try JSONSerialization.jsonObject(with: Data(opened.payload.bytes)) as? [String: Any] ?? [:]
    }
}

/// A configuration sealing for the demo recipient, with these adapters.
public func demoConfig(adapters: [[String: Any]], deadlines: [String: Any] = [:], extra: [String: Any] = [:])
    -> [String: Any]
{
    var config: [String: Any] = [
        "recipients": ["demo": ["key_configs": [DemoRecipient.keyConfigPath]]],
        "adapters": adapters,
    ]
    if !deadlines.isEmpty { config["deadlines"] = deadlines }
    return config.merging(extra) { $1 }
}
