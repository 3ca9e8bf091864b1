/// Every route of the socket API, once: the daemon registers these (and a test checks that it
/// registers exactly these), the client and the CLI call them, the documentation lists them.
public enum Endpoints {
    // The signal core: health, adapters, signals, privacy, recipients. Each app sets its own
    // privacy state; the device's, which stands for apps that set none, is the platform's
    // (`device_privacy`), as is a reset (it erases the device's first-party id).
    public static let health = Endpoint(.get, "/v1/health")
    public static let adapters = Endpoint(.get, "/v1/adapters")
    public static let resetAdapter = Endpoint(.post, "/v1/adapters/{name}/reset", requires: .devicePrivacy)
    public static let signals = Endpoint(.post, "/v1/signals", requires: .signals)
    public static let privacy = Endpoint(.get, "/v1/privacy")
    public static let setPrivacy = Endpoint(.put, "/v1/privacy")
    public static let clearPrivacy = Endpoint(.delete, "/v1/privacy")
    public static let decodedPrivacy = Endpoint(.get, "/v1/privacy/decoded")
    /// What the calling app's state in force lets each adapter, line item and bidder do.
    public static let privacyDecisions = Endpoint(.get, "/v1/privacy/decisions")
    public static let devicePrivacy = Endpoint(.get, "/v1/device/privacy")
    public static let setDevicePrivacy = Endpoint(.put, "/v1/device/privacy", requires: .devicePrivacy)
    public static let clearDevicePrivacy = Endpoint(.delete, "/v1/device/privacy", requires: .devicePrivacy)
    public static let recipients = Endpoint(.get, "/v1/recipients")
    /// Every app known, connected now or not, with its privacy state: a developer's or the
    /// operator's view.
    public static let apps = Endpoint(.get, "/v1/apps", requires: .inspect)

    // Mediation: units, loads, each ad's lifecycle, events and rewards.
    public static let adUnits = Endpoint(.get, "/v1/ad_units")
    public static let loadAd = Endpoint(.post, "/v1/ads", requires: .ads, acknowledges: .owed)
    public static let ad = Endpoint(.get, "/v1/ads/{id}", requires: .ads)
    public static let impression = Endpoint(.post, "/v1/ads/{id}/impression", requires: .ads, acknowledges: .owed)
    public static let click = Endpoint(.post, "/v1/ads/{id}/click", requires: .ads, acknowledges: .owed)
    public static let show = Endpoint(.post, "/v1/ads/{id}/show", requires: .ads, acknowledges: .owed)
    public static let progress = Endpoint(.post, "/v1/ads/{id}/progress", requires: .ads, acknowledges: .owed)
    public static let dismiss = Endpoint(.post, "/v1/ads/{id}/dismiss", requires: .ads, acknowledges: .owed)
    public static let playbackError = Endpoint(.post, "/v1/ads/{id}/error", requires: .ads, acknowledges: .owed)
    public static let events = Endpoint(.get, "/v1/events", requires: .ads)
    public static let rewards = Endpoint(.get, "/v1/rewards", requires: .ads)
    public static let claimReward = Endpoint(
        .post, "/v1/rewards/{transaction_id}/claim", requires: .ads, acknowledges: .claim)

    // The inspector: the last loads and signals requests, each app's own (every app's with
    // `inspect`), and a live stream of them.
    public static let inspectLoads = Endpoint(.get, "/v1/inspect/loads")
    public static let inspectLoad = Endpoint(.get, "/v1/inspect/loads/{id}")
    public static let inspectSignals = Endpoint(.get, "/v1/inspect/signals")
    public static let inspectStream = Endpoint(.get, "/v1/inspect/stream")

    /// Every endpoint above.
    public static let all: [Endpoint] = [
        health, adapters, resetAdapter, signals, privacy, setPrivacy, clearPrivacy, decodedPrivacy, privacyDecisions,
        devicePrivacy, setDevicePrivacy, clearDevicePrivacy, recipients, apps,
        adUnits, loadAd, ad, impression, click, show, progress, dismiss, playbackError, events, rewards, claimReward,
        inspectLoads, inspectLoad, inspectSignals, inspectStream,
    ]
}
