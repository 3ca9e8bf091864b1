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
    private var completed = false

    /// Marks the ad shown; false when it already was.
    mutating func show() -> Bool {
        guard !shown else { return false }
        shown = true
        return true
    }

    /// The events `inputs` cause, in the order they must be emitted. Rewards in one batch are
    /// taken before dismisses, so a network that reports the dismiss first loses nothing.
    mutating func apply(_ inputs: [Input]) -> [AdEvent.Name] {
        let ordered = inputs.filter { $0 != .dismiss } + inputs.filter { $0 == .dismiss }
        var events: [AdEvent.Name] = []
        for input in ordered where !dismissed {
            switch input {
            case .progress(.start):
                events.append(.videoStart)
            case .progress(.complete):
                if !completed {
                    completed = true
                    events.append(.videoComplete)
                }
                events += earn()
            case .progress:
                break
            case .networkReward:
                events += earn()
            case .dismiss:
                // A video watched to the end earns its reward before it is dismissed.
                if completed { events += earn() }
                dismissed = true
                events.append(.dismissed)
            }
        }
        return events
    }

    private mutating func earn() -> [AdEvent.Name] {
        guard !rewarded else { return [] }
        rewarded = true
        return [.rewardEarned]
    }
}
