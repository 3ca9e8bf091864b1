import Timing

extension TrackerQueue {

    public struct Settings: Sendable, Equatable {
        /// Tries at once; the others wait their turn.
        public var concurrency: Int
        public var timeout: Duration
        /// The pause before the second try; it doubles for each one after, up to `maxDelay`,
        /// each drawn between half and all of it so that a fleet does not retry in step.
        public var retryDelay: Duration
        public var maxDelay: Duration
        /// How long a ping is owed before it is given up (`trackers.max_age_ms`) ...
        public var maxAge: Duration
        /// ... and an SSV callback (`ssv.max_age_ms`).
        public var ssvMaxAge: Duration
        /// The most retries in memory at once (tried, or waiting for a fetch slot): twice
        /// `concurrency`, so the slots stay busy while each batch is written.
        var retriesAtOnce: Int { max(1, 2 * concurrency) }
        /// The most owed pings held in memory, each with its delivery; the rest wait in the
        /// outbox and are taken as those settle: first the untried, oldest first, then those
        /// whose next try is due, earliest first.
        public var window: Int
        /// The most pings owed at once (`trackers.max_owed`): past it the oldest are given up,
        /// counted, so that a dead tracker cannot fill the disk.
        public var maxOwed: Int
        /// The longest URL owed (`trackers.max_url_bytes`): a longer one is given up at once,
        /// so that the outbox's bytes are bounded too (at most `maxOwed` × this).
        public var maxURLBytes: Int

        public init(
            concurrency: Int = 8, timeout: Duration = .seconds(5), retryDelay: Duration = .seconds(1),
            maxDelay: Duration = .seconds(600), maxAge: Duration = .seconds(86_400),
            ssvMaxAge: Duration = .seconds(7 * 86_400), window: Int = 10_000, maxOwed: Int = 100_000,
            maxURLBytes: Int = 16_384
        ) {
            self.window = max(1, window)
            self.maxURLBytes = max(1, maxURLBytes)
            self.maxOwed = max(1, maxOwed)
            self.concurrency = concurrency
            self.timeout = timeout
            self.retryDelay = retryDelay
            self.maxDelay = maxDelay
            self.maxAge = maxAge
            self.ssvMaxAge = ssvMaxAge
        }

        /// Whether `ping` is past its kind's max age at `time` (wall-clock ms).
        func isPastMaxAge(_ ping: OwedPing, at time: Int64) -> Bool {
            time - ping.createdAt > (ping.kind == .ssv ? ssvMaxAge : maxAge).wholeMilliseconds
        }
    }
}
