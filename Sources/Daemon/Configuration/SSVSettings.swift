import FoundationEssentials
import SharedTypes
import SignalCrypto

extension DaemonConfiguration {
    /// `ssv`: the key that signs rewards' server-side-verification callbacks, and how long a
    /// callback is tried.
    @Settings
    struct SSVSettings: Codable, Sendable {
        /// A PEM EC P-256 private key (`secure-signals keys ssv-generate`), readable by its owner only.
        @Nullable var signingKey: String?
        /// The key's id in the verifier key set the publisher's server fetches.
        @Nullable var keyID: UInt32?
        @WireName("max_age_ms") @Bounds(1...2_592_000_000) var maxAgeMilliseconds = 604_800_000

        func validate(at codingPath: [any CodingKey]) throws {
            if (signingKey == nil) != (keyID == nil) {
                throw StrictJSON.Failure(
                    at: codingPath, signingKey == nil ? CodingKeys.signingKey : .keyID,
                    "\"signing_key\" and \"key_id\" are set together")
            }
        }

    }
}

extension ConfigurationResolver {
    /// `ssv`: the key that signs callbacks, when one is set; its file read and checked now.
    func ssvKey() throws -> SSVKey? {
        guard let path = settings.ssv.signingKey, let keyID = settings.ssv.keyID else { return nil }
        do {
            return SSVKey(key: try KeyFiles.readSSVSigningKey(at: absolute(path)), id: keyID)
        } catch {
            throw fail("ssv.signing_key", "\(error)")
        }
    }

    /// An ad unit's `ssv.callback_url`: an absolute http(s) URL without a fragment, on a
    /// rewarded unit, with a signing key to sign it.
    func callbackURL(_ unit: AdUnitSettings, id: String) throws -> String? {
        guard let url = unit.ssv?.callbackURL else { return nil }
        let at = "ad_units.\(id).ssv.callback_url"
        guard unit.format == .rewarded else { throw fail(at, "only a rewarded unit earns rewards") }
        guard let components = URLComponents(string: url), ["http", "https"].contains(components.scheme ?? ""),
            components.host?.isEmpty == false, components.fragment == nil
        else {
            throw fail(at, "must be an absolute http(s) URL without a fragment, not \"\(url)\"")
        }
        // A verifier finds the signature by its name: the URL's own parameters must not end in it.
        if let names = components.queryItems?.map(\.name),
            let clash = names.first(where: { $0.hasSuffix("signature") || $0.hasSuffix("key_id") })
        {
            throw fail(
                at, "its query has \"\(clash)\", which a verifier would take for the daemon's signature or key_id")
        }
        guard settings.ssv.signingKey != nil else {
            throw fail(at, "needs ssv.signing_key and ssv.key_id to sign its callbacks")
        }
        return url
    }
}

/// The SSV signing key and its id in the verifier key set.
public struct SSVKey: Sendable {
    public var key: SSVSigningKey
    public var id: UInt32
}
