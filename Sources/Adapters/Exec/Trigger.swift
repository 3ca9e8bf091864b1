import Synchronization

/// Something that happens once (a stop was asked for, a program exited), which tasks wait for
/// without being cancelled: a stop must not cancel the work that carries it out.
final class Trigger: Sendable {
    private let state = Mutex<(fired: Bool, waiters: [@Sendable () -> Void])>((false, []))

    init() {}

    var hasFired: Bool { state.withLock { $0.fired } }

    func fire() {
        let waiters = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.fired else { return [] }
            state.fired = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter() }
    }

    /// Calls `waiter` once this fires: now, if it has.
    private func whenFired(_ waiter: @escaping @Sendable () -> Void) {
        let firedAlready = state.withLock { state -> Bool in
            if !state.fired { state.waiters.append(waiter) }
            return state.fired
        }
        if firedAlready { waiter() }
    }

    /// Returns once any of `triggers` has fired.
    static func first(of triggers: Trigger...) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = ResumeOnce(continuation)
            for trigger in triggers { trigger.whenFired { once.resume() } }
        }
    }

    private final class ResumeOnce: Sendable {
        private let continuation: Mutex<CheckedContinuation<Void, Never>?>

        init(_ continuation: CheckedContinuation<Void, Never>) {
            self.continuation = Mutex(continuation)
        }

        func resume() {
            continuation.withLock { continuation in
                defer { continuation = nil }
                return continuation
            }?.resume()
        }
    }
}
