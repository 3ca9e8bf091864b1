import SharedTypes

/// The rules of one rewarded ad's presentation, whatever order the client and the network
/// report things in: shown once; the reward earned at most once, on `complete` or when the
/// network grants it; `reward_earned` always before `dismissed`; nothing after the dismiss.
struct RewardedPresentation: Sendable {
    enum Input: Sendable, Equatable {
        case progress(VideoProgress)
        case networkReward
        case dismiss
    }

    private(set) var shown = false
    private(set) var rewarded = false
    private(set) var dismissed = false
    private var progressSeen: Set<VideoProgress> = []

    /// Marks the ad shown; false when it already was.
    mutating func show() -> Bool {
        guard !shown else { return false }
        shown = true
        return true
    }

    /// The events `inputs` cause, in the order they must be emitted, and whether they were all
    /// repeats (a progress event reported before, a second dismiss): those change nothing.
    /// Rewards in one batch are taken before dismisses, so a network that reports the dismiss
    /// first loses nothing.
    mutating func apply(_ inputs: [Input]) -> (events: [AdEvent.Name], repeated: Bool) {
        let ordered = inputs.filter { $0 != .dismiss } + inputs.filter { $0 == .dismiss }
        var events: [AdEvent.Name] = []
        var repeated = true
        for input in ordered where !dismissed {
            switch input {
            case .progress(let progress):
                guard progressSeen.insert(progress).inserted else { continue }
                repeated = false
                switch progress {
                case .start:
                    events.append(.videoStart)
                case .complete:
                    events.append(.videoComplete)
                    events += earn()
                case .firstQuartile, .midpoint, .thirdQuartile, .skip:
                    break
                }
            case .networkReward:
                repeated = false
                events += earn()
            case .dismiss:
                repeated = false
                // A video watched to the end earns its reward before it is dismissed.
                if progressSeen.contains(.complete) { events += earn() }
                dismissed = true
                events.append(.dismissed)
            }
        }
        return (events, repeated)
    }

    private mutating func earn() -> [AdEvent.Name] {
        guard !rewarded else { return [] }
        rewarded = true
        return [.rewardEarned]
    }
}
