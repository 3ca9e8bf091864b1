import FoundationEssentials
import SecureSignals
import SharedTypes
import Synchronization

/// An error the program itself answered a request with.
struct ProgramReportedError: Error {
    var body: ExecMessage.ErrorBody
}

/// One run of an adapter program, from the daemon's side: requests queued for its stdin,
/// replies matched to them by id. Every call completes exactly once: with its reply, with its
/// cancellation (the request's timeout), or when the program goes away. A reply nobody waits
/// for any more is counted and dropped.
actor ProgramConnection {
    private typealias Completion = CheckedContinuation<ExecMessage.ResultBody, any Error>

    /// Bytes queued for a program that does not read its stdin, past which calls fail at once
    /// instead of queueing more.
    static let queueLimit = 1 << 20

    /// Encoded request lines, for the task that writes the program's stdin.
    nonisolated let outgoing: AsyncStream<[UInt8]>
    private let outgoingContinuation: AsyncStream<[UInt8]>.Continuation
    private let counters: ProgramCounters
    private let encoder = WireFormat.encoder()
    private let decoder = WireFormat.decoder()
    /// The calls waiting for their reply, by id. Under a lock of its own, so that a caller's
    /// cancellation (which cannot await the actor) forgets its call at once.
    nonisolated private let pending = Mutex<[Int: Completion]>([:])
    private var nextID = 1
    private var queuedBytes = 0
    private var closedBecause: SignalError?

    init(counters: ProgramCounters) {
        self.counters = counters
        // The wire format sorts keys: "id", "method", "params", as the protocol page shows them.
        (outgoing, outgoingContinuation) = AsyncStream.makeStream()
    }

    /// Sends one request and waits for its reply's `result`; throws the program's `error` as a
    /// `ProgramReportedError`, or a `SignalError` when the program cannot be asked.
    func call<Params: Encodable & Sendable>(_ method: String, _ params: Params, id requested: Int? = nil)
        async throws -> ExecMessage.ResultBody
    {
        if let closedBecause { throw closedBecause }
        guard queuedBytes <= Self.queueLimit else {
            throw SignalError(.sdkUnavailable, "the program is not reading its stdin (\(queuedBytes) bytes queued)")
        }
        let id = requested ?? nextID
        if requested == nil { nextID += 1 }
        var line = try Array(encoder.encode(ExecMessage.Request(id: id, method: method, params: params)))
        line.append(UInt8(ascii: "\n"))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Completion) in
                // A caller cancelled before this point is answered here; after it, by `onCancel`
                // (the task is marked cancelled before its handler runs).
                let cancelled = pending.withLock { pending in
                    if Task.isCancelled { return true }
                    pending[id] = continuation
                    return false
                }
                if cancelled { return continuation.resume(throwing: CancellationError()) }
                queuedBytes += line.count
                outgoingContinuation.yield(line)
            }
        } onCancel: {
            // The caller gave up (its timeout): a reply that comes later is unmatched.
            self.pending.withLock { $0.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }

    /// The writer put `count` bytes into the program's stdin.
    func wrote(_ count: Int) {
        queuedBytes -= count
    }

    /// One line of the program's stdout.
    func receive(_ line: [UInt8]) {
        let reply: ExecMessage.Reply
        do {
            reply = try decoder.decode(ExecMessage.Reply.self, from: Data(line))
        } catch {
            let isJSON = JSONSyntax.check(line) == .valid
            counters.dropLine(isJSON ? .notAReply : .notJSON, bytes: line.count)
            return
        }
        guard let completion = pending.withLock({ $0.removeValue(forKey: reply.id) }) else {
            counters.unmatchedReply(id: reply.id)
            return
        }
        switch (reply.result, reply.error) {
        case (let result?, nil):
            completion.resume(returning: result)
        case (nil, let error?):
            completion.resume(throwing: ProgramReportedError(body: error))
        default:
            completion.resume(
                throwing: SignalError(.collectionFailed, "the program's reply had neither or both of result and error"))
        }
    }

    /// The program is gone: every waiting call fails with `reason`, and so does every later one.
    func close(because reason: SignalError) {
        guard closedBecause == nil else { return }
        closedBecause = reason
        let waiting = pending.withLock { pending in
            defer { pending = [:] }
            return pending
        }
        for completion in waiting.values { completion.resume(throwing: reason) }
        outgoingContinuation.finish()
    }
}
