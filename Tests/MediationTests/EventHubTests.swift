import StateStore
import Synchronization
import TestSupport
import Testing
import Timing

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

    /// The next `count` events of `stream`.
    static func take(_ count: Int, of stream: AsyncStream<AdEvent>) async -> [AdEvent] {
        var taken: [AdEvent] = []
        for await event in stream {
            taken.append(event)
            if taken.count == count { break }
        }
        return taken
    }

    @Test func aResumingSubscriberGetsWhatItMissedThenTheLiveEventsNoneTwice() async throws {
        let hub = EventHub()
        for number in 1...5 { hub.publish(Self.event(number)) }
        // It saw up to 2, then left; 3 to 5 happened; it resumes, then 6 comes.
        let resumed = hub.subscribe(EventHub.Filter(), after: 2)
        hub.publish(Self.event(6))
        let events = await Self.take(4, of: resumed)
        #expect(events.map(\.sequence) == [3, 4, 5, 6])
        #expect(events.map(\.adID) == ["ad-3", "ad-4", "ad-5", "ad-6"])
        // A filter applies to what is replayed too.
        let one = hub.subscribe(EventHub.Filter(adID: "ad-4"), after: 0)
        hub.publish(Self.event(4))
        #expect(await Self.take(2, of: one).map(\.sequence) == [4, 7])
    }

    @Test func anIDOlderThanWhatIsKeptStartsWithEventsMissed() async throws {
        let hub = EventHub(retention: EventRetention(count: 3))
        for number in 1...10 { hub.publish(Self.event(number)) }
        let events = await Self.take(4, of: hub.subscribe(EventHub.Filter(), after: 2))
        #expect(events.first?.name == .eventsMissed)
        #expect(events.first?.fields["after"] == .integer(2) && events.first?.fields["first_available"] == .integer(8))
        #expect(events.dropFirst().map(\.sequence) == [8, 9, 10])
    }

    @Test func eventsAreKeptForTheirAgeOnly() async throws {
        let clock = ManualClock()
        let hub = EventHub(retention: EventRetention(age: .seconds(60)), clock: WallClock(clock: clock, start: 0))
        hub.publish(Self.event(1))
        clock.advance(by: .seconds(61))
        hub.publish(Self.event(2))
        let events = await Self.take(2, of: hub.subscribe(EventHub.Filter(), after: 0))
        #expect(events.map(\.name) == [.eventsMissed, .impression] && events.last?.sequence == 2)
    }

    @Test func theJournalCarriesTheEventsAndTheirNumbersAcrossARestart() async throws {
        let directory = try TemporaryDirectory()
        let first = await EventHub(journal: SQLiteEventJournal(try await StateDatabase.open(directory: directory.url)))
        for number in 1...3 {
            var event = Self.event(number)
            event.fields = ["reward": .object(["amount": .integer(10), "type": .string("coins")])]
            first.publish(event)
        }
        await first.close()
        let second = await EventHub(journal: SQLiteEventJournal(try await StateDatabase.open(directory: directory.url)))
        let resumed = second.subscribe(EventHub.Filter(), after: 1)
        second.publish(Self.event(4))
        let events = await Self.take(3, of: resumed)
        #expect(events.map(\.sequence) == [2, 3, 4], "numbers go on from before the restart")
        #expect(
            events.first?.json()
                == #"{"ad_id":"ad-2","ad_unit":"u","event":"impression","reward":{"amount":10,"type":"coins"}}"#)
        await second.close()
    }

    @Test func afterAStopWithoutCloseNoIDIsReusedAndAResumeIsToldItMayHaveMissedSome() async throws {
        let directory = try TemporaryDirectory()
        do {
            // A daemon killed: its hub is never closed, whatever its journal has written.
            let killed = await EventHub(
                journal: SQLiteEventJournal(try await StateDatabase.open(directory: directory.url)))
            // A client saw them: their numbers were reserved before they went out.
            let seen = killed.subscribe(EventHub.Filter())
            for number in 1...3 { killed.publish(Self.event(number)) }
            #expect(await Self.take(3, of: seen).map(\.sequence) == [1, 2, 3])
        }
        let next = await EventHub(journal: SQLiteEventJournal(try await StateDatabase.open(directory: directory.url)))
        let resumed = next.subscribe(EventHub.Filter(), after: 3)
        next.publish(Self.event(4))
        let events = await Self.take(2, of: resumed)
        #expect(events.first?.name == .eventsMissed)
        #expect(events.last?.sequence == EventHub.reservationBlock + 1, "numbers go on past the block reserved")
        await next.close()
    }

    @Test func eventsMissedToAPreviousRunsDeathComeWhereTheyWereLostNotBeforeWhatWasKept() async throws {
        let directory = try TemporaryDirectory()
        let journal = { SQLiteEventJournal(try await StateDatabase.open(directory: directory.url)) }
        let closed = await EventHub(journal: try await journal())
        for number in 1...2 { closed.publish(Self.event(number)) }
        await closed.close()
        do {
            // Killed after event 3: it may or may not have been journaled.
            let killed = await EventHub(journal: try await journal())
            let seen = killed.subscribe(EventHub.Filter())
            killed.publish(Self.event(3))
            #expect(await Self.take(1, of: seen).map(\.sequence) == [3])
        }
        let next = await EventHub(journal: try await journal())
        let resumed = next.subscribe(EventHub.Filter(), after: 1)
        next.publish(Self.event(4))
        var events: [AdEvent] = []
        for await event in resumed {
            events.append(event)
            if event.adID == "ad-4" { break }
        }
        let missed = try #require(events.firstIndex { $0.name == .eventsMissed })
        #expect(events.first?.adID == "ad-2", "what was kept comes first")
        #expect(events[..<missed].allSatisfy { $0.name == .impression && $0.sequence <= 3 })
        #expect(events[(missed + 1)...].map(\.adID) == ["ad-4"])
        #expect(events[missed].fields["first_available"] == .integer(Int64(events[missed + 1].sequence)))
        #expect(events[missed].sequence == events[missed + 1].sequence - 1)
        await next.close()
    }

    @Test func aResumeOlderThanWhatIsKeptAndBeforeADeadRunsTailIsToldOfBothGaps() async throws {
        let directory = try TemporaryDirectory()
        let journal = { SQLiteEventJournal(try await StateDatabase.open(directory: directory.url)) }
        let retention = EventRetention(count: 2)
        // Only the last two are kept: 1 and 2 are gone.
        let closed = await EventHub(journal: try await journal(), retention: retention)
        for number in 1...4 { closed.publish(Self.event(number)) }
        await closed.close()
        do {
            let killed = await EventHub(journal: try await journal(), retention: retention)
            let seen = killed.subscribe(EventHub.Filter())
            killed.publish(Self.event(5))
            #expect(await Self.take(1, of: seen).map(\.sequence) == [5])
        }
        let next = await EventHub(journal: try await journal(), retention: retention)
        let resumed = next.subscribe(EventHub.Filter(), after: 1)
        next.publish(Self.event(6))
        var events: [AdEvent] = []
        for await event in resumed {
            events.append(event)
            if event.adID == "ad-6" { break }
        }
        let names = events.map(\.name)
        // Missed after 1; what is kept of 3-5; missed at the dead run's tail; then the live one.
        #expect(names.first == .eventsMissed && names.filter { $0 == .eventsMissed }.count == 2, "\(names)")
        #expect(events.first?.fields["after"] == .integer(1))
        #expect(events.dropFirst().first.map { $0.name == .impression && $0.sequence <= 5 } == true)
        #expect(events.dropLast().last?.name == .eventsMissed && events.last?.adID == "ad-6")
        await next.close()
    }

    @Test func anIDTheHubNeverGaveIsToldEventsMissedAndCrashesNothing() async throws {
        let hub = EventHub()
        hub.publish(Self.event(1))
        for after in [UInt64(7), UInt64(Int64.max), UInt64.max] {
            let stream = hub.subscribe(EventHub.Filter(), after: after)
            hub.publish(Self.event(2))
            let events = await Self.take(2, of: stream)
            #expect(events.first?.name == .eventsMissed && events.last?.name == .impression, "\(after)")
        }
    }
}
