import Foundation
import Logging
import Metrics
import SecureSignals
import SharedTypes
import Testing
import Timing

@testable import Adapters

/// The daemon's side of one program run, without a program: what is queued for a program that
/// does not read, and how replies are matched.
struct ProgramConnectionTests {
    let counters = ProgramCounters(adapter: "unit", logger: Logger(label: "test"), metrics: NOOPMetricsHandler.instance)

    @Test func aProgramThatDoesNotReadGetsNoMoreThanItsQueue() async throws {
        let connection = ProgramConnection(counters: counters)
        let big = String(repeating: "r", count: 200_000)
        // Nobody writes the queue out: five 200 KB requests fill its 1 MiB.
        var waiting: [Task<Void, Never>] = []
        for index in 0..<6 {
            waiting.append(
                Task {
                    _ = try? await connection.call(
                        "collect", ExecMessage.CollectParams(requestID: "\(big)-\(index)", privacy: nil))
                })
        }
        var refused: SignalError?
        for _ in 0..<200 where refused == nil {
            do {
                _ = try await withTimeout(.milliseconds(20)) {
                    try await connection.call("collect", ExecMessage.CollectParams(requestID: "small", privacy: nil))
                }.valueOrThrow()
            } catch let error as SignalError where error.code == .sdkUnavailable {
                refused = error
            } catch {
                continue  // queued, not refused: the queue is not full yet
            }
        }
        #expect(refused?.code == .sdkUnavailable)
        #expect(refused?.message.contains("not reading its stdin") == true)
        for task in waiting { task.cancel() }
    }

    @Test func aReplyCompletesItsCallOnceAndLaterOnesAreCounted() async throws {
        let connection = ProgramConnection(counters: counters)
        let call = Task {
            try await connection.call("collect", ExecMessage.CollectParams(requestID: "a", privacy: nil))
        }
        var lines = connection.outgoing.makeAsyncIterator()
        let sent = try #require(await lines.next())
        #expect(String(decoding: sent, as: UTF8.self).hasPrefix(#"{"id":1,"method":"collect""#))
        await connection.receive(Array(#"{"id":1,"result":{"signal":"AQ=="}}"#.utf8))
        await connection.receive(Array(#"{"id":1,"result":{"signal":"Ag=="}}"#.utf8))
        #expect(try await call.value.signal == "AQ==")
        #expect(counters.unmatchedReplies == 1)
    }

    /// The lines a program reads, exactly as docs/exec-adapters.md shows them.
    @Test func collectRequestsAreTheLinesTheProtocolPageShows() throws {
        func line(_ privacy: PrivacyState?, app: AppIdentity? = nil) throws -> String {
            let request = ExecMessage.Request(
                id: 7, method: "collect",
                params: ExecMessage.CollectParams(requestID: "ad-42", privacy: privacy, app: app))
            return String(decoding: try WireFormat.encoder().encode(request), as: UTF8.self)
        }
        #expect(
            try line(nil) == #"{"id":7,"method":"collect","params":{"app":null,"privacy":null,"request_id":"ad-42"}}"#)
        #expect(
            try line(PrivacyState(limitAdTracking: false, usPrivacy: "1YNN"))
                == #"{"id":7,"method":"collect","params":{"app":null,"privacy":{"limit_ad_tracking":false,"us_privacy":"1YNN"},"request_id":"ad-42"}}"#
        )
        var description = AppDescription()
        description.bundle = "com.example.news"
        var publisher = AppPublisher()
        publisher.id = "pub-1"
        description.publisher = publisher
        let news = AppIdentity(id: "tv.example.news", capabilities: [.signals], description: description)
        #expect(
            try line(PrivacyState(limitAdTracking: false, usPrivacy: "1YNN"), app: news)
                == #"{"id":7,"method":"collect","params":{"app":{"bundle":"com.example.news","id":"tv.example.news","publisher_id":"pub-1"},"privacy":{"limit_ad_tracking":false,"us_privacy":"1YNN"},"request_id":"ad-42"}}"#
        )
        #expect(
            try line(nil, app: AppIdentity(id: "uid:1000", capabilities: [.signals]))
                == #"{"id":7,"method":"collect","params":{"app":{"bundle":null,"id":"uid:1000","publisher_id":null},"privacy":null,"request_id":"ad-42"}}"#
        )
        let reply = try WireFormat.decoder().decode(
            ExecMessage.Reply.self,
            from: Data(#"{"id":0,"result":{"adapter_version":"1.0.1","sdk_version":"3.18.5"}}"#.utf8))
        #expect(reply.result?.adapterVersion == "1.0.1" && reply.result?.sdkVersion == "3.18.5")
    }
}

extension TimedOutcome {
    /// The value, the operation's error, or a `SignalError` timeout.
    func valueOrThrow() throws -> Value {
        switch self {
        case .value(let value): return value
        case .failure(let error): throw error
        case .timedOut: throw SignalError(.timeout, "timed out")
        }
    }
}
