import Adapters
import Foundation
import Logging
import SharedTypes
import Synchronization
import TestAdapters
import TestSupport
import Testing
import Timing

@testable import SecureSignals

/// Defects found in review, each held by a test that fails without its fix.
struct RegressionTests {
    /// A plaintext cached under one privacy state is never served to a request under another,
    /// even when the request began before the collector heard of the change.
    @Test func aCacheEntryServesOnlyTheSamePrivacyState() async throws {
        let configuration = AdapterConfiguration(name: "test-echo", recipients: [], cacheTTL: .seconds(60))
        let host = AdapterHost(
            configuration: configuration,
            factory: try AdapterRegistry([EchoAdapter.self]).factory(for: configuration), clock: ContinuousClock(),
            logger: Logger(label: "test"))
        await host.initialize(
            context: AdapterContext(
                name: "test-echo", stateDirectory: FileManager.default.temporaryDirectory,
                logger: Logger(label: "test")))
        let consenting = SignalRequest(requestID: "a", privacy: PrivacyState(limitAdTracking: false))
        let limited = SignalRequest(requestID: "b", privacy: PrivacyState(limitAdTracking: true))
        guard case .signal(_, let firstCached, _) = await host.collect(consenting, timeout: .seconds(1)),
            case .signal(_, let againCached, _) = await host.collect(consenting, timeout: .seconds(1)),
            case .signal(_, let limitedCached, _) = await host.collect(limited, timeout: .seconds(1))
        else {
            Issue.record("expected signals")
            return
        }
        #expect(!firstCached && againCached)
        #expect(!limitedCached, "a request under another privacy state must not get the cached plaintext")
    }

    @Test func concurrentResetsLeaveTheServedIDOnDisk() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("resets-\(UUID().uuidString)")
        let adapter = try await FirstPartyIDAdapter.make(
            options: nil,
            context: AdapterContext(name: "first-party-id", stateDirectory: directory, logger: Logger(label: "t")))
        let request = SignalRequest(requestID: "r", privacy: PrivacyState(limitAdTracking: false))
        for _ in 0..<25 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<6 { group.addTask { try await adapter.reset() } }
                try await group.waitForAll()
            }
            guard case .plaintext(let bytes) = try await adapter.collectSignals(for: request) else { return }
            let onDisk = try String(contentsOf: directory.appendingPathComponent("first-party-id"), encoding: .utf8)
            #expect(String(decoding: bytes, as: UTF8.self).contains(onDisk.trimmingCharacters(in: .newlines)))
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".new")
        }
        #expect(leftovers.isEmpty)
    }

    @Test func aCancelledCallerIsAnsweredAtOnce() async throws {
        let clock = ManualClock()
        let waiting = Task {
            await withTimeout(.seconds(30), clock: clock) {
                await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
                return 1
            }
        }
        try await waitUntil { clock.sleeping == 1 }  // the timer waits; time never moves
        waiting.cancel()
        guard case .timedOut = await waiting.value else {
            Issue.record("expected .timedOut")
            return
        }
        #expect(clock.sleeping == 0, "the timer is gone with the answer")
    }

    @Test func aValueThatComesAfterTheTimeoutIsHandedToLateOnce() async throws {
        let clock = ManualClock()
        let handedLate = Mutex<[Int]>([])
        let late: @Sendable (Int) -> Void = { value in handedLate.withLock { $0.append(value) } }
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let racing = Task {
            await withTimeout(.seconds(1), clock: clock, late: late) {
                // Ignores its cancellation: answers once released, whatever happened meanwhile.
                await Task {
                    for await _ in released { break }
                }.value
                return 7
            }
        }
        try await waitUntil { clock.sleeping == 1 }
        clock.advance(by: .seconds(1))
        guard case .timedOut = await racing.value else {
            Issue.record("expected .timedOut")
            return
        }
        #expect(handedLate.withLock { $0 }.isEmpty, "nothing has come yet")
        release.yield()
        try await waitUntil { handedLate.withLock { $0 } == [7] }

        // In time, the value is the answer and nothing is late.
        let onTime = await withTimeout(.seconds(1), clock: clock, late: late) { 8 }
        guard case .value(8) = onTime else {
            Issue.record("expected .value(8)")
            return
        }
        #expect(handedLate.withLock { $0 } == [7])
    }

    /// A host of `name` on `clock` whose breaker opens at the first failure, initialized.
    func breakingHost(_ name: String, clock: ManualClock, coolDown: Duration) async throws -> AdapterHost<ManualClock> {
        let configuration = AdapterConfiguration(
            name: name, recipients: [], timeout: .milliseconds(50),
            circuitBreaker: CircuitBreakerSettings(failures: 1, coolDown: coolDown))
        let host = AdapterHost(
            configuration: configuration, factory: try AdapterRegistry(testAdapters).factory(for: configuration),
            clock: clock, logger: Logger(label: "test"))
        await host.initialize(
            context: AdapterContext(
                name: name, stateDirectory: FileManager.default.temporaryDirectory,
                logger: Logger(label: "test"), clock: clock))
        return host
    }

    /// Asks `host` in a task and answers its adapter's timeout on `clock`.
    func collectTimingOut(_ host: AdapterHost<ManualClock>, clock: ManualClock) async throws -> SignalError? {
        let request = SignalRequest(requestID: "r", privacy: nil)
        let asking = Task { await host.collect(request, timeout: .milliseconds(50)) }
        try await waitUntil { clock.sleeping == 1 }  // the host asks the adapter under its timeout
        clock.advance(by: .milliseconds(50))
        guard case .failure(let error) = await asking.value else { return nil }
        return error
    }

    /// A trial whose caller goes away (a waterfall's line-item timeout cancelling an OpenRTB
    /// load that collects signals) frees the trial: the next request is the trial.
    @Test func aCancelledTrialFreesTheBreaker() async throws {
        let clock = ManualClock()
        let host = try await breakingHost("test-hang", clock: clock, coolDown: .seconds(1))
        #expect(try await collectTimingOut(host, clock: clock)?.code == .timeout, "the failure opens the circuit")
        clock.advance(by: .seconds(1))
        let trial = Task { await host.collect(SignalRequest(requestID: "t", privacy: nil), timeout: .milliseconds(50)) }
        try await waitUntil { clock.sleeping == 1 }
        trial.cancel()
        _ = await trial.value
        let next = try await collectTimingOut(host, clock: clock)
        #expect(next?.code == .timeout, "the next request asks the adapter, not \(String(describing: next))")
    }

    /// A caller with no time left (an OpenRTB line item whose signals' budget is spent) gets a
    /// timeout without the adapter being asked: not the adapter's fault, so its breaker stays
    /// closed even at one failure.
    @Test func noTimeLeftIsATimeoutThatDoesNotAskTheAdapterNorCountAgainstIt() async throws {
        let clock = ManualClock()
        let host = try await breakingHost("test-echo", clock: clock, coolDown: .seconds(60))
        let request = SignalRequest(requestID: "r", privacy: nil)
        for _ in 0..<2 {
            guard case .failure(let failure) = await host.collect(request, timeout: .zero) else {
                Issue.record("expected a timeout, the adapter not asked")
                return
            }
            #expect(failure.code == .timeout && failure.message == "no time left to ask it")
        }
        #expect(await host.status.circuit.state == .closed)
        guard case .signal = await host.collect(request, timeout: .milliseconds(50)) else {
            Issue.record("expected the adapter to be asked and answer")
            return
        }
    }

    @Test func aResetClosesTheBreaker() async throws {
        let clock = ManualClock()
        let host = try await breakingHost("test-fails-until-reset", clock: clock, coolDown: .seconds(60))
        let request = SignalRequest(requestID: "r", privacy: nil)
        guard case .failure(let failure) = await host.collect(request, timeout: .milliseconds(50)) else {
            Issue.record("expected the broken SDK to fail")
            return
        }
        #expect(failure.code == .collectionFailed)
        #expect(await host.status.circuit.state == .open)
        try await host.reset()
        #expect(await host.status.circuit.state == .closed)
        guard case .signal(.plaintext(let bytes), _, _) = await host.collect(request, timeout: .milliseconds(50)) else {
            Issue.record("expected the reset adapter to be asked, and answer")
            return
        }
        #expect(bytes == Array("reset".utf8))
    }

    @Test func answersShowUnknownFieldsAsNull() throws {
        let signal = SealedSignal(
            adapter: "a", adapterVersion: SemanticVersion(1, 0, 0), sdkVersion: SemanticVersion(1, 0, 0),
            recipient: nil,
            keyID: nil, envelope: "e", cached: false)
        let text = String(decoding: try WireFormat.encoder().encode(signal), as: UTF8.self)
        #expect(text.contains("\"recipient\":null") && text.contains("\"key_id\":null"))
    }
}
