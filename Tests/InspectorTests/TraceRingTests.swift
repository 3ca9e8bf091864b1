import Inspector
import SharedTypes
import Synchronization
import Testing

@Suite struct TraceRingTests {
    static let privacy = PrivacySummary(
        set: false, gdprApplies: nil, tcf: false, gppSections: [], usPrivacy: false, limitAdTracking: false,
        gpc: false, coppa: false, servingMode: .personalized)

    static func load(app: String?, unit: String = "home", outcome: String = "filled", message: String? = nil)
        -> LoadTrace
    {
        LoadTrace(
            id: 0, app: app, adUnit: unit, format: .native, startedAtMilliseconds: 1, durationMilliseconds: 2,
            outcome: outcome, message: message, test: false, privacy: privacy, bidders: [], sources: [])
    }

    static func signals(app: String?) -> SignalsTrace {
        SignalsTrace(
            id: 0, requestID: "r", app: app, startedAtMilliseconds: 1, durationMilliseconds: 2,
            deadlineMilliseconds: 100, privacy: privacy, adapters: [])
    }

    static let news = AppIdentity(id: "tv.news", capabilities: [.signals, .ads])
    static let tool = AppIdentity(id: "tv.tool", capabilities: [.inspect])

    @Test func theOldestGoPastTheCountAndIdsKeepIncreasing() {
        let ring = TraceRing(limits: .init(maxTraces: 3, maxBytes: 1 << 20))
        for _ in 0..<5 { ring.record(Self.load(app: "tv.news")) }
        let ids = ring.traces(.init(asker: nil)).map(\.id)
        #expect(ids == [5, 4, 3])
        #expect(ring.usage.traces == 3)
    }

    @Test func theOldestGoPastTheBytesButTheNewestStays() {
        let ring = TraceRing(limits: .init(maxTraces: 100, maxBytes: 2_100))
        let long = String(repeating: "x", count: 500)
        for _ in 0..<5 { ring.record(Self.load(app: "a", message: long)) }
        let usage = ring.usage
        #expect(usage.traces == 2)
        #expect(usage.bytes <= 2_100)
        let tight = TraceRing(limits: .init(maxTraces: 100, maxBytes: 100))
        tight.record(Self.load(app: "a"))
        tight.record(Self.load(app: "a"))
        #expect(tight.usage.traces == 1)
        #expect(tight.traces(.init(asker: nil)).first?.id == 2)
    }

    /// A bidder's texts are its own to make long: the trace keeps what a developer reads.
    @Test func aTracesRemoteTextsAreCutToReadableLengths() throws {
        let ring = TraceRing()
        var trace = Self.load(app: "a", message: String(repeating: "m", count: 5_000))
        trace.bidders = [
            BidderTrace(
                network: "openrtb", parameter: "p", startMilliseconds: 0, latencyMilliseconds: 1, outcome: .lost,
                bid: BidDetails(
                    seat: String(repeating: "s", count: 1_000), bidID: "b", creativeID: nil,
                    advertiserDomains: (0..<100).map { "d\($0).example" }),
                message: String(repeating: "e", count: 100_000))
        ]
        ring.record(trace)
        let kept = try #require(ring.traces(.init(asker: nil)).first?.load)
        #expect(kept.message?.count == 512 && kept.message?.hasSuffix("…") == true)
        #expect(kept.bidders[0].message?.count == 512)
        #expect(kept.bidders[0].bid?.seat?.count == 128)
        #expect(kept.bidders[0].bid?.bidID == "b")
        #expect(kept.bidders[0].bid?.advertiserDomains == (0..<16).map { "d\($0).example" })
        #expect(ring.usage.bytes < 4_000)
    }

    @Test func noneAreKeptWhenOffAndLoweringTheLimitTrimsAtOnce() {
        let ring = TraceRing(limits: .init(maxTraces: 10, maxBytes: 1 << 20))
        for _ in 0..<6 { ring.record(Self.signals(app: nil)) }
        ring.limits = .init(maxTraces: 2, maxBytes: 1 << 20)
        #expect(ring.traces(.init(asker: nil)).map(\.id) == [6, 5])
        ring.limits = .init(maxTraces: 0, maxBytes: 1 << 20)
        ring.record(Self.signals(app: nil))
        #expect(ring.usage.traces == 0)
    }

    @Test func anAppSeesItsOwnAnInspectAppEveryones() {
        let ring = TraceRing()
        ring.record(Self.load(app: "tv.news"))
        ring.record(Self.load(app: "tv.other"))
        ring.record(Self.signals(app: "tv.other"))
        #expect(ring.traces(.init(asker: Self.news)).map(\.app) == ["tv.news"])
        #expect(ring.traces(.init(asker: Self.tool)).count == 3)
        #expect(ring.trace(2, .init(asker: Self.news)) == nil)
        #expect(ring.trace(2, .init(asker: Self.tool))?.app == "tv.other")
        #expect(ring.traces(.init(asker: Self.tool, kind: .signals)).map(\.id) == [3])
        #expect(ring.traces(.init(asker: Self.tool, kind: .load, app: "tv.other")).map(\.id) == [2])
    }

    @Test func filtersByUnitAndOutcomeAndLimits() {
        let ring = TraceRing()
        ring.record(Self.load(app: nil, unit: "a", outcome: "no_fill"))
        ring.record(Self.load(app: nil, unit: "b", outcome: "filled"))
        ring.record(Self.load(app: nil, unit: "a", outcome: "filled"))
        #expect(ring.traces(.init(asker: nil, adUnit: "a")).map(\.id) == [3, 1])
        #expect(ring.traces(.init(asker: nil, outcome: "filled")).map(\.id) == [3, 2])
        #expect(ring.traces(.init(asker: nil), limit: 1).map(\.id) == [3])
    }

    @Test func aSubscriberGetsWhatItMaySeeAndIsLetGoWhenBehind() async {
        let ring = TraceRing()
        let behind = Counter()
        let stream = ring.subscribe(.init(asker: Self.news), buffer: 2) { behind.add() }
        ring.record(Self.load(app: "tv.other"))  // not its own: not counted against its buffer
        ring.record(Self.load(app: "tv.news"))
        ring.record(Self.signals(app: "tv.news"))
        #expect(behind.value == 0)
        ring.record(Self.load(app: "tv.news"))  // a third while two wait: let go
        #expect(behind.value == 1)
        #expect(ring.subscriberCount == 0)
        var seen: [UInt64] = []
        for await trace in stream { seen.append(trace.id) }
        #expect(seen == [2, 3])
    }
}

/// Counts calls from any thread.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
