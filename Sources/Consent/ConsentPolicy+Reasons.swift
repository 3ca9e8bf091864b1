import SharedTypes

extension ConsentPolicy {
    /// Why requests to `vendor` are not served personalised (nil: they are): the first rule of
    /// `servingMode(vendor:)` that lowers them, for what `GET /v1/privacy/decisions` shows.
    public func personalizationDenial(vendor: Int?) -> String? {
        guard let state else { return "no privacy state has been set" }
        if state.limitAdTracking { return "the user limits ad tracking" }
        if state.coppa == true { return "COPPA: the device is directed to children" }
        if let usPersonalizationDenial { return usPersonalizationDenial }
        if state.gdprApplies == true, let reason = tcfDenial(ServingMode.personalizedNeeds(vendor: vendor)) {
            return "TCF: \(reason)"
        }
        return nil
    }
}
