import Inspector
import SharedTypes

extension DaemonConfiguration {
    /// `inspect`: how much the inspector keeps of the last loads and signals requests (in
    /// memory only).
    @Settings
    struct InspectSettings: Codable, Sendable {
        /// How many traces are kept; 0 keeps none (the inspector is off).
        @Bounds(0...100_000) var maxTraces = 500
        /// About how many bytes they may hold; the oldest go first.
        @Bounds(65_536...268_435_456) var maxTraceBytes = 2 << 20
        /// Whether the loopback listener (`metrics.listen`) also serves the inspector's page,
        /// which shows every app's traces to whoever reaches that port: a developer mode.
        var page = false

        var limits: TraceRing.Limits { TraceRing.Limits(maxTraces: maxTraces, maxBytes: maxTraceBytes) }
    }
}
