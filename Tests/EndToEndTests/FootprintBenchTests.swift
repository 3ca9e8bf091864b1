import Bench
import Foundation
import SharedTypes
import TestSupport
import Testing

/// `secure-signals bench footprint` and what it reads: the kernel's accounting of a process.
struct FootprintBenchTests {
    @Test func processMemoryCountsWhatAnotherProcessWrites() async throws {
        // A child that writes 64 MiB and waits: its memory is what it wrote, whatever the
        // tests running beside this one allocate or free.
        let child = try await ChildProcess.start(
            "/usr/bin/env", ["python3", "-c", "import sys, time; b = b'x' * (64 << 20); time.sleep(30)"])
        let seen = try? await eventually(timeout: .seconds(10)) {
            ProcessMemory.of(child.pid).flatMap { $0.privateDirtyBytes >= 64 << 20 ? $0 : nil }
        }
        let memory = try #require(seen ?? ProcessMemory.of(child.pid))
        #expect(memory.privateDirtyBytes >= 64 << 20, "\(memory)")
        #expect(
            memory.proportionalBytes >= memory.privateDirtyBytes && memory.residentBytes >= memory.proportionalBytes)
        #expect(memory.threads == 1 && memory.descriptors >= 3, "\(memory)")
        #expect(ProcessMemory.of(-1) == nil)
    }

    @Test func theCPUTimeReadFromProcIsWhatAnotherProcessBurned() async throws {
        // A child that spends 0.6 s of CPU in user and system time (stat(2) in a loop), says
        // what its own times(2) counts, then sleeps: /proc says the same, user and system both.
        let scratch = try TemporaryDirectory()
        let output = scratch.path("times")
        let child = try await ChildProcess.start(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import os, time
                t = time.process_time()
                while time.process_time() - t < 0.6: os.stat("/")
                c = os.times()
                print(c.user, c.system, flush=True)
                time.sleep(30)
                """,
            ], standardOutput: .file(output))
        // Until the child has printed its whole line (it then sleeps).
        let line =
            (try? await eventually(timeout: .seconds(20)) { () -> Data? in
                let written = FileManager.default.contents(atPath: output) ?? Data()
                return written.contains(UInt8(ascii: "\n")) ? written : nil
            }) ?? Data()
        let times = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap {
            Double($0)
        }
        try #require(times.count == 2, "the child said \"\(String(decoding: line, as: UTF8.self))\"")
        #expect(times[1] >= 0.05, "the child spent system time too: \(times)")
        let cpu = try #require(ProcessFootprint.of(child.pid)?.cpuSeconds)
        // Both count clock ticks; the child may run a tick more between its print and its sleep.
        #expect(abs(cpu - (times[0] + times[1])) <= 0.03, "\(cpu) s against the child's own \(times)")
        #expect(ProcessFootprint.of(-1) == nil)
        #expect(ProcessCPUTime.current > 0)
    }

    @Test func theBenchmarkMeasuresBothConfigurations() async throws {
        let result = try await Binary.run(
            "secure-signals-bench",
            [
                "footprint", "--daemon", Binary.path("secure-signalsd"), "--signals", "30", "--ads", "30", "--rounds",
                "1", "--settle-seconds", "0.2", "--idle-seconds", "1",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n")
        for configuration in FootprintBenchmark.Configuration.allCases {
            let line = try #require(lines.first { $0.hasPrefix(configuration.rawValue) }, "\(result.stdoutText)")
            #expect(line.contains("| 0/60  | "), "every request answered 2xx: \(line)")
            // ready ms, exit ms, ready/exit, then the idle and after columns: all measured; then
            // the idle CPU ticks (0 or more).
            let numbers = line.dropFirst(configuration.rawValue.count).split(separator: " ").compactMap { Double($0) }
            #expect(numbers.count == 14 && numbers.dropLast().allSatisfy { $0 > 0 } && numbers[13] >= 0, "\(line)")
        }
        #expect(lines.contains { $0.contains("start to ready <= 100 ms") })
        #expect(lines.contains { $0.contains("idle CPU <= 1 tick per 10 s: ") && $0.hasSuffix(" ticks in 1 s") })
        #expect(lines.contains { $0.hasPrefix("binary: \(Binary.path("secure-signalsd"))") })
    }
}
