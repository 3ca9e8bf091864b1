import Synchronization
import Testing

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

struct ResponseDateTests {
    @Test func formatsIMFFixdate() {
        // RFC 9110 §5.6.7's own example, 784111777 seconds after the epoch.
        #expect(ResponseDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(ResponseDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    @Test func followsTheClockSecondBySecond() {
        let second = Mutex<time_t>(784_111_777)
        let dates = ResponseDate(clock: { second.withLock { $0 } })
        #expect(dates.now == "Sun, 06 Nov 1994 08:49:37 GMT")
        second.withLock { $0 += 1 }
        #expect(dates.now == "Sun, 06 Nov 1994 08:49:38 GMT")
    }
}
