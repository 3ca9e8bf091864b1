import Foundation
import TestSupport
import Testing

@testable import Bench

/// What `bench signals --instructions` counts with: valgrind's callgrind, on real programs (a
/// Python one: the debug build's Swift runtime, a shared libdispatch, stops valgrind 3.19; the
/// release build is static and runs under it, in CI's short benchmark runs). CI installs valgrind.
@Suite(.enabled(if: Binary.onPath("valgrind") != nil && Binary.onPath("callgrind_control") != nil))
struct CallgrindTests {
    @Test func aProgramRunToItsEndCountsMoreForMoreWork() async throws {
        let scratch = try TemporaryDirectory()
        let callgrind = try Callgrind(directory: scratch.url)
        let python = try await callgrind.countable("/usr/bin/python3")
        let small = try await callgrind.instructions(ofRun: python, ["-c", "sum(range(10**5))"])
        let large = try await callgrind.instructions(ofRun: python, ["-c", "sum(range(10**6))"])
        // 900,000 more additions, a few instructions each at least.
        #expect(small > 0 && large > small + 2_700_000, "\(small) then \(large)")
    }

    @Test func aRunningProgramIsCountedOnlyWhileTheBodyRuns() async throws {
        let scratch = try TemporaryDirectory()
        let callgrind = try Callgrind(directory: scratch.url)
        let python = try await callgrind.countable("/usr/bin/python3")
        // Says it is ready, then sums 2,000,000 numbers each time a "go" file appears; idle
        // between, looking for it every 10 ms.
        let go = scratch.path("go")
        let done = scratch.path("done")
        let program = """
            import os, time
            open("\(scratch.path("ready"))", "w").close()
            while True:
                if os.path.exists("\(go)"):
                    sum(range(2 * 10**6)); os.remove("\(go)"); open("\(done)", "w").close()
                time.sleep(0.01)
            """
        let child = try await ChildProcess.start(
            callgrind.launcher[0], Array(callgrind.launcher.dropFirst()) + [python, "-c", program])
        defer { child.send(SIGKILL) }
        _ = try await eventually(timeout: .seconds(60)) {
            FileManager.default.fileExists(atPath: scratch.path("ready")) ? true : nil
        }
        // Nothing but the time callgrind_control takes to switch on, zero and dump.
        let idle = try await callgrind.instructions(of: child.pid) {}
        let working = try await callgrind.instructions(of: child.pid) {
            _ = FileManager.default.createFile(atPath: go, contents: nil)
            _ = try await eventually(timeout: .seconds(60)) {
                FileManager.default.fileExists(atPath: done) ? true : nil
            }
        }
        // Python's start (tens of millions of instructions) was not counted, nor the first count in the second.
        #expect(idle.count < 20_000_000, "idle: \(idle.count)")
        #expect(
            working.count > 4_000_000 && working.count > 5 * idle.count, "\(working.count) against \(idle.count) idle")
    }

    @Test func theCountIsTheDumpsTotalsLine() throws {
        let scratch = try TemporaryDirectory()
        let dump = scratch.path("callgrind.out.1")
        try Data("events: Ir\nsummary: 12\nfn=main\n3 12\ntotals: 233465903\n".utf8).write(
            to: URL(fileURLWithPath: dump))
        #expect(Callgrind.total(inDump: dump) == 233_465_903)
        try Data("events: Ir\n".utf8).write(to: URL(fileURLWithPath: dump))
        #expect(Callgrind.total(inDump: dump) == nil)
        #expect(Callgrind.total(inDump: scratch.path("missing")) == nil)
    }
}
