import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The `Date` header of the socket API's answers (RFC 9110 §5.6.7, IMF-fixdate): formatted
/// at most once a second, whoever asks.
final class ResponseDate: Sendable {
    private let cached = Mutex<(second: time_t, text: String)>((-1, ""))
    private let clock: @Sendable () -> time_t

    /// `clock` tells the current second (the system's, but for tests).
    init(clock: @escaping @Sendable () -> time_t = { time(nil) }) {
        self.clock = clock
    }

    /// The current time as the header's value.
    var now: String {
        let second = clock()
        return cached.withLock { cached in
            if cached.second != second { cached = (second, Self.format(second)) }
            return cached.text
        }
    }

    /// `second` as IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`; the C library's day and
    /// month names are those the format requires (the daemon never sets a locale).
    static func format(_ second: time_t) -> String {
        var seconds = second
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var bytes = [CChar](repeating: 0, count: 32)
        let count = strftime(&bytes, bytes.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: bytes.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
