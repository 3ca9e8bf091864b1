import SharedTypes
import Timing

extension SignalCollector {
    /// One adapter's part of a request, sealed: its signals, its failures, and its answer's
    /// latency and circuit for the trace.
    struct Sealed: Sendable {
        var index: Int
        var signals: [SealedSignal]
        var failures: [AdapterFailure]
        var latency: Duration
        var circuit: CircuitStatus.State

        func trace(adapter: String) -> AdapterTrace {
            let outcome =
                signals.first.map { $0.cached ? "cached" : "signal" } ?? failures.first?.code.rawValue ?? "signal"
            return AdapterTrace(
                adapter: adapter, outcome: outcome, latencyMilliseconds: milliseconds(latency), circuit: circuit,
                sealedFor: signals.compactMap(\.recipient), message: failures.first?.message)
        }
    }
}

extension SignalCollector.Sealed {
    /// Every adapter's trace in the order asked: those that answered, then those refused before
    /// asking (unknown, denied), each where `order` puts it.
    static func traces(answered: [AdapterTrace], errors: [AdapterFailure], order: [String: Int]) -> [AdapterTrace] {
        let asked = Set(answered.map(\.adapter))
        let refused = errors.filter { !asked.contains($0.adapter) }.map {
            AdapterTrace(
                adapter: $0.adapter, outcome: $0.code.rawValue, latencyMilliseconds: nil, circuit: nil,
                sealedFor: [], message: $0.message)
        }
        return (answered + refused).sorted { order[$0.adapter, default: 0] < order[$1.adapter, default: 0] }
    }
}
