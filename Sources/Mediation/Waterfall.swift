import Consent
import SharedTypes
import Timing

/// Tries an ad unit's line items in order until one fills, each under its own timeout, and
/// reports every attempt.
struct Waterfall {
    struct Fill: Sendable {
        var ad: NetworkAd
        var network: String
        var tracksItself: Bool
        var info: ResponseInfo
        /// What the line item that filled needs from the user's consent.
        var consent: ConsentRequirement = .none
    }

    struct Failure: Error, Sendable {
        var error: AdLoadError
        var info: ResponseInfo
    }

    let unit: AdUnit
    let networks: [String: NetworkHost]

    /// `decisions`: the privacy state's, per line item: one it denies is skipped, and each
    /// request carries the serving mode it allows.
    func load(_ request: AdLoadRequest, decisions: LineItemDecisions) async -> Result<Fill, Failure> {
        var attempts: [ResponseInfo.Attempt] = []
        var lastError = AdLoadError(.noFill, "the waterfall is empty")
        for (index, item) in unit.waterfall.enumerated() {
            let decision = decisions.decision(unit: unit.id, item: index)
            let start = ContinuousClock.now
            func attempt(_ outcome: ResponseInfo.Attempt.Outcome, _ message: String?) {
                let elapsed = ContinuousClock.now - start
                attempts.append(
                    ResponseInfo.Attempt(
                        network: item.network, parameter: item.parameter, outcome: outcome,
                        latencyMilliseconds: milliseconds(elapsed),
                        message: message))
            }
            if let reason = decision.consent.reason {
                attempt(.consentMissing, reason)
                lastError = AdLoadError(.noFill, "\(item.network): \(reason)")
                continue
            }
            guard let host = networks[item.network], let adapter = await host.ready() else {
                let reason = await networks[item.network]?.notReadyReason ?? "no network named '\(item.network)'"
                attempt(.notReady, reason)
                lastError = AdLoadError(.networkError, reason)
                continue
            }
            let servingMode = decision.servingMode
            let networkRequest = NetworkAdRequest(
                adUnit: unit.id, parameter: item.parameter, options: item.options, formatIDs: request.formatIDs,
                preferences: request.preferences, privacy: decisions.privacy, servingMode: servingMode,
                deadline: .now + item.timeout)
            let format = unit.format
            let outcome = await withTimeout(item.timeout) { () async throws -> NetworkAd in
                switch format {
                case .native: return try await adapter.loadNativeAd(networkRequest)
                case .rewarded: return try await adapter.loadRewardedAd(networkRequest)
                }
            }
            switch outcome {
            case .value(let ad):
                if let problem = Self.mismatch(ad.content, format: format, formatIDs: request.formatIDs) {
                    attempt(.error, problem)
                    lastError = AdLoadError(.internalError, "\(item.network): \(problem)")
                    continue
                }
                attempt(.filled, nil)
                return .success(
                    Fill(
                        ad: ad, network: item.network, tracksItself: adapter.tracksImpressionsAndClicks,
                        info: ResponseInfo(attempts: attempts, network: item.network, servingMode: servingMode),
                        consent: item.consent))
            case .failure(let error as AdLoadError) where error.code == .noFill:
                attempt(.noFill, error.message)
                lastError = error
            case .failure(let error):
                var failure = error as? AdLoadError ?? AdLoadError(.networkError, String(describing: error))
                // A network refusing its line item is the network's failure, not the client's request.
                if failure.code == .invalidRequest { failure.code = .networkError }
                attempt(.error, failure.message)
                lastError = failure
            case .timedOut:
                let message = "no answer within \(item.timeout)"
                attempt(.timeout, message)
                lastError = AdLoadError(.timeout, "\(item.network): \(message)")
            }
        }
        return .failure(Failure(error: lastError, info: ResponseInfo(attempts: attempts, network: nil)))
    }

    /// Why a network's ad does not fit the load, if it does not.
    static func mismatch(_ content: NetworkAd.Content, format: AdFormat, formatIDs: [String]) -> String? {
        switch (content, format) {
        case (.native, .native), (.rewarded, .rewarded):
            return nil
        case (.customNative(let ad), .native):
            return formatIDs.contains(ad.formatID)
                ? nil : "answered custom native format \(ad.formatID), which the client does not render"
        default:
            return "answered an ad of another format"
        }
    }
}
