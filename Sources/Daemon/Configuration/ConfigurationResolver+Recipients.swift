import FoundationEssentials
import NIOSSL
import SecureSignals
import SignalCrypto

extension ConfigurationResolver {
    /// `recipients`: each one's key configuration files read (the first one sealing; every
    /// older file must read too, as it still opens what was sealed before a rotation), and
    /// each key URL checked, never fetched.
    func recipients() throws -> [String: Recipient] {
        var recipients: [String: Recipient] = [:]
        for (name, recipient) in settings.recipients.sorted(by: { $0.key < $1.key }) {
            recipients[name] = try problems.collecting { try self.recipient(name, recipient) }
        }
        return recipients
    }

    /// One recipient, its name, files and key URL checked.
    func recipient(_ name: String, _ recipient: DaemonConfiguration.RecipientSettings) throws -> Recipient {
        // It names a file in the state directory, and a metric label.
        guard !name.isEmpty, !name.hasPrefix("."), name.utf8.count <= 64,
            name.unicodeScalars.allSatisfy({
                $0.isASCII && (Character($0).isLetter || Character($0).isNumber || "._-".unicodeScalars.contains($0))
            })
        else {
            throw fail(
                "recipients.\(name)",
                "a recipient's name is 1-64 ASCII letters, digits, '.', '_' or '-', not starting with '.'")
        }
        if recipient.demoKey {
            let demo = try EnvelopeSealer(keyConfig: try DemoKey.keyConfig())
            return Recipient(
                name: name, keys: RecipientKeys(files: .init(sealer: demo, keyIDs: [demo.header.keyID]), demo: true))
        }
        let files = recipient.keyConfigs.isEmpty ? nil : try fileKeys(name, recipient.keyConfigs)
        guard let url = recipient.keyURL else {
            guard let files else { throw fail("recipients.\(name)", "names no keys") }
            return Recipient(name: name, keys: RecipientKeys(files: files))
        }
        return Recipient(
            name: name,
            keys: RecipientKeys(
                url: .init(
                    url: try keyURL(name, url),
                    caFile: try recipient.caFile.map { try caFile(name, $0, for: url) },
                    defaultMaxAge: .milliseconds(recipient.defaultMaxAgeMilliseconds),
                    maxStale: .milliseconds(recipient.maxStaleMilliseconds)),
                fallback: files))
    }

    /// `key_configs`: every file read; the first configuration of the first seals.
    private func fileKeys(_ name: String, _ paths: [String]) throws -> RecipientKeys.FileKeys {
        var keyIDs: [UInt8] = []
        var sealer: EnvelopeSealer?
        for (index, file) in paths.enumerated() {
            let path = "recipients.\(name).key_configs[\(index)]"
            do {
                let configs = try KeyFiles.readKeyConfigs(at: absolute(file))
                guard let first = configs.first else { throw fail(path, "holds no key configuration") }
                if index == 0 { sealer = try EnvelopeSealer(keyConfig: first) }
                keyIDs += configs.map(\.keyID)
            } catch let error as ConfigurationError {
                throw error
            } catch {
                throw fail(path, "\(error)")
            }
        }
        guard let sealer else { throw fail("recipients.\(name).key_configs", "must list at least one file") }
        return .init(sealer: sealer, keyIDs: keyIDs)
    }

    /// `key_url`: https, or plain http to a loopback address only (tests, local relays), given
    /// as an address, not a name; no user or password in it (a query is kept, but left out
    /// wherever the URL is logged or shown).
    private func keyURL(_ name: String, _ text: String) throws -> String {
        let path = "recipients.\(name).key_url"
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host,
            !host.isEmpty
        else {
            throw fail(path, "must be an absolute http(s) URL, not \"\(text)\"")
        }
        guard url.user == nil, url.password == nil else { throw fail(path, "must not carry credentials") }
        switch scheme {
        case "https": return text
        case "http" where Self.isLoopback(host): return text
        case "http": throw fail(path, "must be https (plain http is allowed to a loopback address only)")
        default: throw fail(path, "must be an https URL, not \(scheme)")
        }
    }

    /// `ca_file`: a PEM file holding at least one certificate, for an https key URL.
    private func caFile(_ name: String, _ file: String, for url: String) throws -> String {
        let path = "recipients.\(name).ca_file"
        guard URL(string: url)?.scheme?.lowercased() == "https" else {
            throw fail(path, "applies only to an https key_url")
        }
        let file = absolute(file)
        do {
            guard !(try NIOSSLCertificate.fromPEMFile(file)).isEmpty else {
                throw fail(path, "\(file) holds no certificate")
            }
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw fail(path, "\(file) is not a PEM file of certificates: \(error)")
        }
        return file
    }

    /// 127.0.0.0/8 or ::1, as an address: a name is resolved by whatever the device's
    /// resolver says.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimming(while: { $0 == "[" || $0 == "]" })
        if host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}
