import Testing

@testable import Mediation

/// The ordering rules of a rewarded ad, input by input.
struct RewardedPresentationTests {
    @Test func rewardPrecedesDismissWhateverTheOrderReported() {
        var presentation = RewardedPresentation()
        #expect(presentation.show() && !presentation.show())
        #expect(presentation.apply([.dismiss, .networkReward]) == [.rewardEarned, .dismissed])
        #expect(presentation.apply([.networkReward, .progress(.complete)]).isEmpty, "nothing after the dismiss")
    }

    @Test func aCompletedVideoIsRewardedOnceEvenIfTheNetworkRewardsToo() {
        var presentation = RewardedPresentation()
        _ = presentation.show()
        #expect(presentation.apply([.progress(.start)]) == [.videoStart])
        #expect(presentation.apply([.progress(.complete), .networkReward]) == [.videoComplete, .rewardEarned])
        #expect(presentation.apply([.dismiss]) == [.dismissed])
        #expect(presentation.apply([.dismiss]).isEmpty)
    }

    @Test func aSkipEarnsNothing() {
        var presentation = RewardedPresentation()
        _ = presentation.show()
        #expect(presentation.apply([.progress(.skip), .dismiss]) == [.dismissed])
    }
}
