import Adapters
import Foundation
import Logging
import SharedTypes
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
                name: "test-echo", options: AdapterOptions(), stateDirectory: FileManager.default.temporaryDirectory,
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
        let adapter = try await FirstPartyIDAdapter(
            context: AdapterContext(
                name: "first-party-id", options: AdapterOptions(), stateDirectory: directory, logger: Logger(label: "t")
            ))
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

    @Test func answersShowUnknownFieldsAsNull() throws {
        let signal = SealedSignal(
            adapter: "a", adapterVersion: SemanticVersion(1, 0, 0), sdkVersion: SemanticVersion(1, 0, 0),
            recipient: nil,
            keyID: nil, envelope: "e", cached: false)
        let text = String(decoding: try WireFormat.encoder().encode(signal), as: UTF8.self)
        #expect(text.contains("\"recipient\":null") && text.contains("\"key_id\":null"))
    }
}
