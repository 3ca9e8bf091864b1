import Synchronization

/// The background tasks one piece starts and owns (a refresh, a retry's wait, a retiring
/// adapter's stop): each ends by itself, when its key is cancelled or replaced, or at the
/// owner's `cancelAll`/`waitForAll`, which return once every one has ended. None outlives its
/// owner's stop, and none starts after it.
package final class OwnedTasks<Key: Hashable & Sendable>: Sendable {
    private struct Entry {
        var key: Key?
        var task: Task<Void, Never>
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var nextID = 0
        var stopped = false

        /// Takes `key` from its task, which is still awaited at the stop; returns the task.
        mutating func release(_ key: Key) -> Task<Void, Never>? {
            guard let id = entries.first(where: { $0.value.key == key })?.key else { return nil }
            entries[id]?.key = nil
            return entries[id]?.task
        }
    }

    private let state = Mutex(State())

    package init() {}

    /// Starts `operation`; does nothing once the owner has stopped. Answers whether it started.
    @discardableResult
    package func start(_ operation: @escaping @Sendable () async -> Void) -> Bool {
        start(key: nil, operation)
    }

    /// Starts `operation` under `key`, cancelling the task the key held; does nothing once the
    /// owner has stopped. Answers whether it started.
    @discardableResult
    package func start(_ key: Key, _ operation: @escaping @Sendable () async -> Void) -> Bool {
        start(key: key, operation)
    }

    private func start(key: Key?, _ operation: @escaping @Sendable () async -> Void) -> Bool {
        let replaced = state.withLock { state -> Task<Void, Never>?? in
            guard !state.stopped else { return .none }
            let id = state.nextID
            state.nextID += 1
            let replaced = key.flatMap { state.release($0) }
            // Owned: ends with `operation`, or is cancelled by `cancel`, a replacement or
            // `cancelAll`; `cancelAll` and `waitForAll` wait for it.
            let task = Task { [weak self] in
                await operation()
                self?.state.withLock { _ = $0.entries.removeValue(forKey: id) }
            }
            state.entries[id] = Entry(key: key, task: task)
            return .some(replaced)
        }
        guard case .some(let previous) = replaced else { return false }
        previous?.cancel()
        return true
    }

    /// Cancels the task under `key`, if one runs.
    package func cancel(_ key: Key) {
        state.withLock { $0.release(key) }?.cancel()
    }

    /// Whether a task runs under `key`.
    package func contains(_ key: Key) -> Bool {
        state.withLock { state in state.entries.values.contains { $0.key == key } }
    }

    /// Starts nothing more, cancels every task, and returns once each has ended.
    package func cancelAll() async {
        let tasks = stop()
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    /// Starts nothing more, and returns once every task has ended by itself.
    package func waitForAll() async {
        for task in stop() { await task.value }
    }

    private func stop() -> [Task<Void, Never>] {
        state.withLock { state in
            state.stopped = true
            return state.entries.values.map(\.task)
        }
    }
}
