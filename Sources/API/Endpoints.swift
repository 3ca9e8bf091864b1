/// Every route of the socket API, once: the daemon registers these (and a test checks that it
/// registers exactly these), the client and the CLI call them, the documentation lists them.
public enum Endpoints {
    // The signal core: health, adapters, signals, privacy, recipients.
    public static let health = Endpoint(.get, "/v1/health")
    public static let adapters = Endpoint(.get, "/v1/adapters")
    public static let resetAdapter = Endpoint(.post, "/v1/adapters/{name}/reset")
    public static let signals = Endpoint(.post, "/v1/signals")
    public static let privacy = Endpoint(.get, "/v1/privacy")
    public static let setPrivacy = Endpoint(.put, "/v1/privacy")
    public static let clearPrivacy = Endpoint(.delete, "/v1/privacy")
    public static let decodedPrivacy = Endpoint(.get, "/v1/privacy/decoded")
    public static let recipients = Endpoint(.get, "/v1/recipients")

    // Mediation: units, loads, each ad's lifecycle, events and rewards.
    public static let adUnits = Endpoint(.get, "/v1/ad_units")
    public static let loadAd = Endpoint(.post, "/v1/ads", acknowledges: .owed)
    public static let ad = Endpoint(.get, "/v1/ads/{id}")
    public static let impression = Endpoint(.post, "/v1/ads/{id}/impression", acknowledges: .owed)
    public static let click = Endpoint(.post, "/v1/ads/{id}/click", acknowledges: .owed)
    public static let show = Endpoint(.post, "/v1/ads/{id}/show", acknowledges: .owed)
    public static let progress = Endpoint(.post, "/v1/ads/{id}/progress", acknowledges: .owed)
    public static let dismiss = Endpoint(.post, "/v1/ads/{id}/dismiss", acknowledges: .owed)
    public static let playbackError = Endpoint(.post, "/v1/ads/{id}/error", acknowledges: .owed)
    public static let events = Endpoint(.get, "/v1/events")
    public static let rewards = Endpoint(.get, "/v1/rewards")
    public static let claimReward = Endpoint(.post, "/v1/rewards/{transaction_id}/claim", acknowledges: .claim)

    /// Every endpoint above.
    public static let all: [Endpoint] = [
        health, adapters, resetAdapter, signals, privacy, setPrivacy, clearPrivacy, decodedPrivacy, recipients,
        adUnits, loadAd, ad, impression, click, show, progress, dismiss, playbackError, events, rewards, claimReward,
    ]
}
