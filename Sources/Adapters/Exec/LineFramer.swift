/// Cuts a byte stream into newline-terminated lines, holding at most `limit` bytes: a longer
/// line is dropped whole (and reported) rather than buffered, so a program that never writes
/// a newline cannot grow the daemon's memory.
struct LineFramer {
    enum Piece: Equatable {
        case line([UInt8])
        /// A line over the limit, dropped; its length in bytes.
        case tooLong(Int)
    }

    let limit: Int
    private var buffer: [UInt8] = []
    /// Bytes of the current line already dropped because it went over the limit.
    private var discarded = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes the next bytes; returns the lines they complete, in order.
    mutating func append(_ bytes: UnsafeRawBufferPointer) -> [Piece] {
        var pieces: [Piece] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
            let end = newline ?? bytes.endIndex
            let count = end - start
            if discarded > 0 || buffer.count + count > limit {
                discarded += buffer.count + count
                buffer.removeAll(keepingCapacity: false)
            } else {
                buffer.append(contentsOf: bytes[start..<end])
            }
            guard let newline else { break }
            if discarded > 0 {
                pieces.append(.tooLong(discarded))
                discarded = 0
            } else {
                var line = buffer
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                pieces.append(.line(line))
                buffer.removeAll(keepingCapacity: true)
            }
            start = newline + 1
        }
        return pieces
    }

    /// What is left at end of stream: an unterminated last line, if any.
    mutating func finish() -> [Piece] {
        defer {
            buffer = []
            discarded = 0
        }
        if discarded > 0 { return [.tooLong(discarded)] }
        return buffer.isEmpty ? [] : [.line(buffer)]
    }
}
