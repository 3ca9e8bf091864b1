/// What a VAST tag or document came to: an ad to play, no fill, or a failure with the Error URLs to fire.
public enum VASTResolution: Sendable, Equatable {
    /// A playable ad. `discarded`: the ads of the first document tried before it and skipped, each with its code
    /// and Error URLs, for the caller to fire.
    case ad(VASTCreative, discarded: [VASTError])
    /// The first document held no ad (empty, or only root `Error`s): no fill. The caller fires `errorURLs` with 303.
    case noAd(errorURLs: [String])
    /// Nothing playable. The error carries the first ad's code and the Error URLs of every ad tried, of every
    /// wrapper on their chains and of the document's root.
    case failure(VASTError)
}
