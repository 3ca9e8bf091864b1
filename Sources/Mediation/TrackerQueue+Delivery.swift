import Logging
import Metrics
import SharedTypes
import Synchronization
import Timing

extension TrackerQueue.Engine {
    /// Tries `ping` once: it settles, or is rescheduled to wait out its pause in the outbox.
    /// Returns early, the ping still owed as it was, when the queue is drained.
    func deliver(_ initial: OwedPing, slots: FetchSlots) async {
        var ping = initial
        // One owed from before a restart, or rescheduled, may be past its age already.
        if settings.isPastMaxAge(ping, at: clock.nowMilliseconds) {
            drop(ping, reason: "too old")
            return
        }
        await slots.acquire()
        if Task.isCancelled {
            await slots.release()
            return
        }
        let (outcome, status) = await attempt(ping)
        await slots.release()
        ping.attempts += 1
        switch outcome {
        case .sent:
            heard(ping.id, outcome, status: status)
            count(ping.kind, "fired")
            settle(ping.id)
        case .refused(let reason):
            heard(ping.id, outcome, status: status)
            count(ping.kind, "failed")
            logger.warning(
                "a tracker refused its ping", metadata: ["kind": "\(ping.kind.rawValue)", "reason": "\(reason)"])
            settle(ping.id)
        case .retry(let reason):
            // A try the drain cut short: still owed, for the next start.
            if Task.isCancelled { return }
            heard(ping.id, outcome, status: status)
            let due = clock.nowMilliseconds + backoff(afterAttempt: ping.attempts)
            if settings.isPastMaxAge(ping, at: due) {
                drop(ping, reason: reason)
                return
            }
            count(ping.kind, "retried")
            state.withLock { $0.rescheduled.append((ping.id, ping.attempts, due)) }
            wakes.yield()
        }
    }

    private enum Outcome {
        case sent
        case refused(String)
        case retry(String)
    }

    /// One try: 2xx and 3xx are sent; 4xx and a URL that cannot be sent are refused for
    /// good; the rest may work later. The HTTP status, when one answered.
    private func attempt(_ ping: OwedPing) async -> (Outcome, Int?) {
        do {
            let response = try await fetcher.send(
                AdServerRequest(url: ping.url, timeout: settings.timeout, redirects: .anyOrigin))
            let status = Int(response.status)
            switch response.status {
            case 200..<400: return (.sent, status)
            case 400..<500: return (.refused("HTTP \(response.status)"), status)
            default: return (.retry("HTTP \(response.status)"), status)
            }
        } catch {
            switch error.kind {
            case .invalidURL, .tooManyRedirects, .redirectRefused: return (.refused(error.kind.rawValue), nil)
            case .tooLarge: return (.sent, nil)  // it answered; only its body was over the cap
            case .timeout, .transport, .status: return (.retry(error.kind.rawValue), nil)
            }
        }
    }

    /// Tells who hears of ping `id` how its try went; one that settled is heard of no more.
    private func heard(_ id: Int64, _ outcome: Outcome, status: Int?) {
        let heard: NoticeTrace.Outcome
        switch outcome {
        case .sent: heard = .sent
        case .refused: heard = .refused
        case .retry: heard = .retrying
        }
        let observer = state.withLock { state in
            heard == .retrying ? state.observers[id] : state.observers.removeValue(forKey: id)
        }
        observer?(heard, status)
    }

    /// The pause after `attempt` tries, in milliseconds: `retryDelay` doubled for each try
    /// after the first, at most `maxDelay`, drawn between half and all of it.
    private func backoff(afterAttempt attempt: Int) -> Int64 {
        max(
            1,
            Backoff(first: settings.retryDelay, maximum: settings.maxDelay, jitter: 0.5...1)
                .delay(afterFailures: attempt).wholeMilliseconds)
    }

    /// Counts and logs (once a minute at most) pings given up unsent: the oldest, for room
    /// (`outbox_full`), or URLs too long to owe (`too_long`).
    func gaveUp(_ count: Int, reason: String) {
        givenUp[reason]?.increment(by: count)
        guard faults.shouldLog(reason) else { return }
        if reason == "outbox_full" {
            logger.warning(
                "the tracker outbox is full (trackers.max_owed): the oldest owed pings were given up (logged once a minute)",
                metadata: ["given_up": "\(count)", "max_owed": "\(settings.maxOwed)"])
        } else {
            logger.warning(
                "tracker URLs over trackers.max_url_bytes were given up (logged once a minute)",
                metadata: ["given_up": "\(count)", "max_url_bytes": "\(settings.maxURLBytes)"])
        }
    }

    /// Gives `ping` up, past its max age: counted, logged, no longer owed.
    private func drop(_ ping: OwedPing, reason: String) {
        state.withLock { $0.observers.removeValue(forKey: ping.id) }?(.givenUp, nil)
        givenUp["max_age"]?.increment()
        count(ping.kind, "dropped")
        logger.warning(
            "a tracker ping was given up after its max age (trackers.max_age_ms, ssv.max_age_ms)",
            metadata: ["kind": "\(ping.kind.rawValue)", "reason": "\(reason)", "attempts": "\(ping.attempts)"])
        settle(ping.id)
    }

    private func settle(_ id: Int64) {
        state.withLock { $0.settled.append(id) }
        wakes.yield()
    }
}

/// At most `count` fetches at once; the others wait their turn, first come first served.
actor FetchSlots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { free = count }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
