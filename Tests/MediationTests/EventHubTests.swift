import Synchronization
import Testing

@testable import Mediation

/// Subscribers of the ad events, each with its own bounded buffer.
struct EventHubTests {
    static func event(_ number: Int) -> AdEvent {
        AdEvent(name: .impression, adID: "ad-\(number)", adUnit: "u")
    }

    @Test func aSubscriberThatFallsBehindIsLetGoAndTheOthersGetEverything() async throws {
        let hub = EventHub()
        let behind = Mutex(0)
        let slow = hub.subscribe(EventHub.Filter(), buffer: 4) { behind.withLock { $0 += 1 } }
        let keeping = hub.subscribe(EventHub.Filter(), buffer: 64)
        for number in 0..<6 { hub.publish(Self.event(number)) }
        #expect(behind.withLock { $0 } == 1, "told once, when the fifth event found the buffer full")
        #expect(hub.subscriberCount == 1, "the one behind is gone from the hub")
        var held: [String?] = []
        for await event in slow { held.append(event.adID) }
        #expect(held == ["ad-0", "ad-1", "ad-2", "ad-3"], "its stream ends after what it held")
        var all: [String?] = []
        for await event in keeping {
            all.append(event.adID)
            if all.count == 6 { break }
        }
        #expect(all == (0..<6).map { "ad-\($0)" })
    }
}
