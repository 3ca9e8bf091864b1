/// Where one connection is between its requests, and so which of its timers runs: none while a
/// request it has read is being answered (an event stream is answered for as long as it lasts),
/// the read timeout while part of a request has arrived, else the idle timeout.
struct ConnectionActivity: Equatable {
    enum Timer: Equatable {
        case idle
        case read
    }

    /// Requests read to their end.
    private(set) var requestsRead = 0
    /// Answers written to their end; ahead of `requestsRead` while an answer went out before
    /// its request's end came in (a 413, a route that does not read the body).
    private(set) var answersEnded = 0
    /// Bytes arrived since the last request's end.
    private var partialRequest = false

    mutating func bytesArrived() { partialRequest = true }

    mutating func requestEnded() {
        partialRequest = false
        requestsRead += 1
    }

    mutating func answerEnded() { answersEnded += 1 }

    /// A request was read whose answer is not finished.
    var isAnswering: Bool { requestsRead > answersEnded }

    /// The current request was answered before it was read to its end.
    var wasAnsweredEarly: Bool { answersEnded > requestsRead }

    var timer: Timer? {
        if isAnswering { return nil }
        return partialRequest ? .read : .idle
    }
}
