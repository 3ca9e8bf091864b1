import FoundationEssentials
import Logging
import Mediation
import SharedTypes
import SignalCrypto

/// Signs SSV callbacks as Google's AdMob does, so that a publisher's server can check them with
/// Tink's `RewardedAdsVerifier`: the parameters in Google's names and order (`custom_data` and
/// `user_id` only when set, `timestamp` in ms), then `signature` (ECDSA P-256 over SHA-256 of
/// the query string before `&signature=`, DER, base64url) and `key_id`, last. What is signed is
/// the query as Tink reads it, percent-decoded (`URI.getQuery()`); what is sent is escaped.
struct SSVCallbackSigner: RewardCallbackSigner {
    let key: SSVSigningKey
    let keyID: UInt32
    let logger: Logger

    func callbackURL(_ base: String, for reward: EarnedReward, adNetwork: String) -> String? {
        var parameters = [("ad_network", adNetwork), ("ad_unit", reward.adUnit)]
        if let data = reward.customData { parameters.append(("custom_data", data)) }
        parameters += [
            ("reward_amount", reward.amountText), ("reward_item", reward.rewardType),
            ("timestamp", "\(reward.earnedAt)"), ("transaction_id", reward.transactionID),
        ]
        if let user = reward.userID { parameters.append(("user_id", user)) }
        let query = parameters.map { "\($0)=\(Self.escape($1))" }.joined(separator: "&")
        let plain = parameters.map { "\($0)=\($1)" }.joined(separator: "&")
        // The base's own query, when it has one, is signed too: a verifier checks all that
        // precedes `&signature=`.
        let components = URLComponents(string: base)
        let existing = components?.percentEncodedQuery ?? ""
        let signed = existing.isEmpty ? plain : (components?.query ?? existing) + "&" + plain
        do {
            let signature = try key.sign(Array(signed.utf8))
            let separator = existing.isEmpty ? (base.hasSuffix("?") ? "" : "?") : "&"
            return base + separator + query + "&signature=" + Base64URL.encode(signature) + "&key_id=\(keyID)"
        } catch {
            logger.error(
                "an SSV callback could not be signed",
                metadata: ["transaction_id": "\(reward.transactionID)", "error": "\(error)"])
            return nil
        }
    }

    /// Percent-encoded but for RFC 3986's unreserved characters.
    static func escape(_ value: String) -> String {
        PercentEncoding.unreserved(value)
    }
}
