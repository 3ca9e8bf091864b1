import Logging
import Testing

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// Log lines for journald: a syslog priority journald reads, one record per line.
struct DaemonLogTests {
    @Test func eachLevelHasItsSyslogPriority() {
        let priorities = Logger.Level.allCases.map { DaemonLogHandler.priority(of: $0) }
        #expect(priorities == [7, 7, 6, 5, 4, 3, 2])
    }

    @Test func aJournalLineIsOneLineWithItsPriorityAndNoTimestamp() {
        let line = DaemonLogHandler.journalLine(
            level: .warning, label: "secure-signalsd", fields: " peer_uid=1000", message: "two\nlines")
        #expect(line == "<4>secure-signalsd: peer_uid=1000 two\\nlines\n")
    }

    @Test func autoIsJournaldOnlyWhenStderrIsTheStreamJOURNAL_STREAMNames() {
        var status = stat()
        #expect(fstat(2, &status) == 0)
        let mine = "\(status.st_dev):\(status.st_ino)"
        #expect(LogFormat.auto.resolved(environment: ["JOURNAL_STREAM": mine]) == .journald)
        #expect(
            LogFormat.auto.resolved(environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino + 1)"]) == .text)
        #expect(LogFormat.auto.resolved(environment: ["JOURNAL_STREAM": "garbage"]) == .text)
        #expect(LogFormat.auto.resolved(environment: [:]) == .text)
        #expect(LogFormat.journald.resolved(environment: [:]) == .journald)
        #expect(LogFormat.text.resolved(environment: ["JOURNAL_STREAM": mine]) == .text)
    }
}
