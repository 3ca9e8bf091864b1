import SecureSignals
import SignalCrypto

extension ConfigurationResolver {
    /// `recipients`: each one's key configuration files read, the first one sealing; every
    /// older file must read too (it still opens what was sealed before a rotation).
    func recipients() throws -> [String: Recipient] {
        var recipients: [String: Recipient] = [:]
        for (name, recipient) in settings.recipients.sorted(by: { $0.key < $1.key }) {
            recipients[name] = try problems.collecting { try self.recipient(name, recipient) }
        }
        return recipients
    }

    /// One recipient, its files read.
    func recipient(_ name: String, _ recipient: DaemonConfiguration.RecipientSettings) throws -> Recipient {
        if recipient.demoKey {
            return Recipient(name: name, sealer: try EnvelopeSealer(keyConfig: try DemoKey.keyConfig()))
        }
        let path = "recipients.\(name).key_configs[0]"
        let configs: [KeyConfig]
        do {
            configs = try KeyFiles.readKeyConfigs(at: absolute(recipient.keyConfigs[0]))
            for (index, older) in recipient.keyConfigs.enumerated().dropFirst() {
                do {
                    _ = try KeyFiles.readKeyConfigs(at: absolute(older))
                } catch {
                    throw fail("recipients.\(name).key_configs[\(index)]", "\(error)")
                }
            }
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw fail(path, "\(error)")
        }
        guard let newest = configs.first else { throw fail(path, "holds no key configuration") }
        do {
            return Recipient(name: name, sealer: try EnvelopeSealer(keyConfig: newest))
        } catch {
            throw fail(path, "\(error)")
        }
    }
}
