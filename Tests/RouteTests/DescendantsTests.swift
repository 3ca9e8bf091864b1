import Bench
import SharedTypes
import Testing

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// Reading `/proc/PID/stat`, whose command name may hold anything but a newline, and a
/// process's own children.
struct DescendantsTests {
    @Test func aStatLineIsReadAfterTheCommandsLastParenthesis() {
        let tricky = Descendants.parse(stat: "4242 (a) b (Z 1) S 17 4242 300 0 -1 4194560", pid: 4242)
        #expect(tricky == Descendants.Process(pid: 4242, parent: 17, isZombie: false, processGroup: 4242, session: 300))
        #expect(tricky?.isProgram == true, "a group leader in another's session: a program")
        let zombie = Descendants.parse(stat: "99 (sleep) Z 1 99 99 0 -1", pid: 99)
        #expect(zombie == Descendants.Process(pid: 99, parent: 1, isZombie: true, processGroup: 99, session: 99))
        #expect(zombie?.isProgram == false, "a session leader (setsid): adopted")
        #expect(Descendants.parse(stat: "garbage", pid: 1) == nil)
    }

    /// A process's children are listed from its threads' `children` files (where the kernel
    /// has them), without reading every process on the machine: the one this test starts is
    /// there, and gone once it was waited for.
    @Test func aProcesssOwnChildrenAreListed() async throws {
        guard let before = ProcFiles.children(of: getpid()) else { return }  // CONFIG_PROC_CHILDREN off
        let child = try await ChildProcess.start("/bin/sleep", ["30"])
        #expect(ProcFiles.children(of: getpid())?.contains(child.pid) == true)
        #expect(!before.contains(child.pid))
        child.send(SIGKILL)
        _ = await child.exit()
        #expect(ProcFiles.children(of: getpid())?.contains(child.pid) == false)
    }
}
