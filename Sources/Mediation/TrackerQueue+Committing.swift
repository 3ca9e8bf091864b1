import Logging
import Metrics
import SharedTypes
import Synchronization
import Timing

extension TrackerQueue.Engine {
    typealias PingObserver = TrackerQueue.PingObserver

    /// Takes what a previous run left owed, then writes each batch as it comes, until the
    /// queue is drained (one last commit then).
    func commitUntilFinished() async {
        await takeOwed()
        for await _ in wakeups { await commitPending() }
        await commitPending()
    }

    /// Writes everything enqueued, settled and rescheduled so far, in as few commits as the
    /// disk allows: what comes during one commit goes in the next.
    func commitPending() async {
        while true {
            let now = clock.nowMilliseconds
            let (commit, observers, upTo) = state.withLock { state -> (OutboxCommit, [PingObserver?], UInt64) in
                var commit = OutboxCommit()
                commit.adding = state.unsaved.map { ($0.url, $0.kind) }
                let observers = state.unsaved.map(\.observer)
                commit.addedAt = state.unsavedSince ?? now
                commit.settled = state.settled
                commit.rescheduled = state.rescheduled
                commit.maximumOwed = settings.maxOwed
                state.unsaved = []
                state.unsavedSince = nil
                state.settled = []
                state.rescheduled = []
                state.committing = !commit.isEmpty
                return (commit, observers, state.enqueued)
            }
            if commit.isEmpty {
                resumeWaiters(upTo: upTo, failure: nil)
                await refill()
                resumeIdleWaiters()
                return
            }
            do {
                let committed = try await outbox.commit(commit)
                let added = committed.added
                if committed.givenUp > 0 { gaveUp(committed.givenUp, reason: "outbox_full") }
                let unheard = state.withLock { state in
                    let givenUp = Self.observe(added, observers: observers, in: &state)
                    state.saved = upTo
                    for id in commit.settled + commit.rescheduled.map(\.id) {
                        state.inHand.remove(id)
                        state.retriesInHand.remove(id)
                    }
                    if let earliest = commit.rescheduled.map(\.dueAt).min() {
                        state.retryDue = min(state.retryDue ?? earliest, earliest)
                    }
                    return givenUp
                }
                for observer in unheard { observer(.givenUp, nil) }
                // In hand before anyone hears they are written: an idle queue has sent them.
                hand(added)
                state.withLock { $0.committing = false }
                resumeWaiters(upTo: upTo, failure: nil)
                await refill()
            } catch {
                if faults.shouldLog("commit") {
                    logger.error(
                        "the tracker outbox could not be written (logged once a minute while it lasts)",
                        metadata: ["error": "\(error)"])
                }
                state.withLock { state in
                    let unsent = zip(commit.adding, observers).map { (url: $0.0.url, kind: $0.0.kind, observer: $0.1) }
                    state.unsaved = unsent + state.unsaved
                    state.unsavedSince = commit.adding.isEmpty ? state.unsavedSince : commit.addedAt
                    state.settled = commit.settled + state.settled
                    state.rescheduled = commit.rescheduled + state.rescheduled
                    state.committing = false
                }
                resumeWaiters(upTo: upTo, failure: error)
                // Pings no call waits for (a background load's notices) are tried again
                // a second later, whether or not another call comes.
                wake(at: clock.nowMilliseconds + 1000)
                return
            }
        }
    }

    /// Resumes the waiters whose pings are in a commit up to `upTo`: with `failure` when it
    /// was not written.
    private func resumeWaiters(upTo: UInt64, failure: (any Error)?) {
        let ready = state.withLock { state in
            let ready = state.waiters.filter { $0.upTo <= upTo }
            state.waiters.removeAll { $0.upTo <= upTo }
            return ready.map(\.continuation)
        }
        for waiter in ready {
            if let failure { waiter.resume(throwing: failure) } else { waiter.resume() }
        }
    }

    /// Resumes who waits for the queue to be idle, if it is now (or has stopped).
    func resumeIdleWaiters() {
        let now = clock.nowMilliseconds
        let idle = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.stopped || state.isIdle(at: now) else { return [] }
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        for waiter in idle { waiter.resume() }
    }

    /// Returns once the queue has nothing to do now: every ping enqueued so far written,
    /// delivered or waiting for a retry's time, and the outcomes written. What tests await
    /// instead of "nothing more happened" sleeps.
    func idle() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            state.withLock { $0.idleWaiters.append(waiter) }
            // A pass of the committer looks, whether or not anything else moves.
            wakes.yield()
            resumeIdleWaiters()
        }
    }

    func committed() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome = state.withLock { state -> Result<Bool, any Error> in
                guard state.saved < state.enqueued else { return .success(true) }
                guard !state.stopped else { return .failure(TrackerQueueStopped()) }
                state.waiters.append((state.enqueued, continuation))
                return .success(false)
            }
            switch outcome {
            case .success(true): continuation.resume()
            case .success(false): wakes.yield()
            case .failure(let error): continuation.resume(throwing: error)
            }
        }
    }

    /// Who hears of each ping `added` stored: `adding`'s observers, in the order stored. The
    /// pings a commit gives up to stay within `trackers.max_owed` are the oldest, so those it
    /// gave up of its own are the front of `adding` (which never holds SSV pings): the
    /// observers returned, to be told outside the lock.
    static func observe(
        _ added: [OwedPing], observers: [PingObserver?], in state: inout State
    ) -> [PingObserver] {
        guard observers.contains(where: { $0 != nil }) else { return [] }
        let givenUp = observers.prefix(max(0, observers.count - added.count)).compactMap { $0 }
        for (ping, observer) in zip(added, observers.suffix(added.count)) {
            if let observer { state.observers[ping.id] = observer }
        }
        let excess = state.observers.count - maxObservers
        if excess > 0 {
            for id in state.observers.keys.sorted().prefix(excess) { state.observers[id] = nil }
        }
        return givenUp
    }
}
