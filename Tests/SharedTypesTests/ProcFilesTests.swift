import Foundation
import SharedTypes
import Testing

/// `/proc`, read once: the stat line after the command's last parenthesis, the keyed files,
/// descriptors, on this very process.
struct ProcFilesTests {
    @Test func aStatLineIsReadAfterTheCommandsLastParenthesis() throws {
        let line = "4242 (a) b (Z 1) S 17 4242 300 0 -1 4194560 1 2 3 4 150 25 0 0 20 0 1 0 98765 0 0"
        let stat = try #require(ProcFiles.stat(parsing: line))
        #expect(stat.state == "S" && stat.parent == 17 && stat.processGroup == 4242 && stat.session == 300)
        #expect(stat.userTicks == 150 && stat.systemTicks == 25 && stat.startTicks == 98765)
        #expect(ProcFiles.stat(parsing: "no parenthesis") == nil)
        #expect(ProcFiles.stat(parsing: "1 (x) S") == nil, "too few fields")
    }

    @Test func thisProcessIsReadWhole() throws {
        let pid = getpid()
        let stat = try #require(ProcFiles.stat(of: pid))
        #expect(stat.startTicks > 0 && stat.parent == getppid())
        let status = try #require(ProcFiles.numbers("status", of: pid))
        #expect((status["VmRSS"] ?? 0) > 0 && (status["Threads"] ?? 0) >= 1)
        #expect((ProcFiles.openDescriptors(of: pid) ?? 0) >= 3)
        #expect(ProcFiles.ticksPerSecond > 0 && (ProcFiles.bootTime ?? 0) > 1_000_000_000)
        #expect(ProcFiles.stat(of: Int32.max) == nil, "no such process")
    }
}
