import Testing

@testable import Mediation

/// The ordering rules of a rewarded ad, input by input.
struct RewardedPresentationTests {
    @Test func rewardPrecedesDismissWhateverTheOrderReported() {
        var presentation = RewardedPresentation()
        #expect(presentation.show() && !presentation.show())
        #expect(presentation.apply([.dismiss, .networkReward]).events == [.rewardEarned, .dismissed])
        #expect(presentation.apply([.networkReward, .progress(.complete)]).events.isEmpty, "nothing after the dismiss")
    }

    @Test func aCompletedVideoIsRewardedOnceEvenIfTheNetworkRewardsToo() {
        var presentation = RewardedPresentation()
        _ = presentation.show()
        #expect(presentation.apply([.progress(.start)]).events == [.videoStart])
        #expect(presentation.apply([.progress(.start)]) == ([], true), "a repeated start fires nothing")
        #expect(presentation.apply([.progress(.midpoint)]) == ([], false), "a first midpoint counts")
        #expect(presentation.apply([.progress(.complete), .networkReward]).events == [.videoComplete, .rewardEarned])
        #expect(presentation.apply([.dismiss]).events == [.dismissed])
        #expect(presentation.apply([.dismiss]) == ([], true))
    }

    @Test func aSkipEarnsNothing() {
        var presentation = RewardedPresentation()
        _ = presentation.show()
        #expect(presentation.apply([.progress(.skip), .dismiss]).events == [.dismissed])
    }
}
