import TestSupport
import Testing
import Timing

@testable import Daemon

/// A client hammering a limit is logged once a minute per peer and event, not once per refusal.
struct RateLimitedLogTests {
    @Test func eachKeyIsLoggedOnceAnInterval() {
        let clock = ManualClock()
        let log = RateLimitedLog(clock: clock, interval: .seconds(60))
        #expect(log.shouldLog("1000 max_connections"))
        #expect(!log.shouldLog("1000 max_connections"), "the same peer and limit: quiet for a minute")
        #expect(log.shouldLog("1001 max_connections"), "another peer is logged")
        #expect(log.shouldLog("1000 read_timeout"), "another event of the same peer is logged")
        clock.advance(by: .seconds(59))
        #expect(!log.shouldLog("1000 max_connections"))
        clock.advance(by: .seconds(1))
        #expect(log.shouldLog("1000 max_connections"), "a minute later, once more")
    }

    @Test func manyPeersDoNotGrowTheTableWithoutBound() {
        let clock = ManualClock()
        let log = RateLimitedLog(clock: clock, interval: .seconds(60))
        for uid in 0..<5000 {
            if uid % 1000 == 0 { clock.advance(by: .seconds(61)) }
            _ = log.shouldLog("\(uid) max_connections")
        }
        #expect(log.keysHeld <= 2048)
    }
}
