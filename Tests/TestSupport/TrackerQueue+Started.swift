import Mediation

extension TrackerQueue {
    /// The queue, sending: its `run` in a task of its own, which `drain` ends (the daemon runs
    /// it in its service group; a test that never drains leaves it waiting for pings).
    public func started() -> TrackerQueue {
        Task { await self.run() }
        return self
    }
}
