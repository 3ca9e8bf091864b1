import Bench
import Foundation
import Testing

/// `secure-signals bench footprint` and what it reads: the kernel's accounting of a process.
struct FootprintBenchTests {
    @Test func processMemoryCountsWhatAnotherProcessWrites() async throws {
        // A child that writes 64 MiB and waits: its memory is what it wrote, whatever the
        // tests running beside this one allocate or free.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        child.arguments = ["python3", "-c", "import sys, time; b = b'x' * (64 << 20); time.sleep(30)"]
        try child.run()
        defer { child.terminate() }
        var seen: ProcessMemory?
        for _ in 0..<200 {
            seen = ProcessMemory.of(child.processIdentifier)
            if let seen, seen.privateDirtyBytes >= 64 << 20 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let memory = try #require(seen)
        #expect(memory.privateDirtyBytes >= 64 << 20, "\(memory)")
        #expect(
            memory.proportionalBytes >= memory.privateDirtyBytes && memory.residentBytes >= memory.proportionalBytes)
        #expect(memory.threads == 1 && memory.descriptors >= 3, "\(memory)")
        #expect(ProcessMemory.of(-1) == nil)
    }

    @Test func processCPUTimeCountsWhatAnotherProcessBurns() async throws {
        // A child that spins for 0.6 s of CPU, then sleeps: /proc shows at least that much,
        // and never more than the wall time it has been alive on one thread.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        child.arguments = [
            "python3", "-c",
            "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.6: pass\ntime.sleep(30)",
        ]
        let started = ContinuousClock.now
        try child.run()
        defer { child.terminate() }
        var seen: Double?
        for _ in 0..<400 {
            seen = ProcessCPUTime.of(child.processIdentifier)
            if let seen, seen >= 0.6 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let cpu = try #require(seen)
        let alive = ContinuousClock.now - started
        #expect(cpu >= 0.6 && cpu <= Double(alive.components.seconds) + 1, "\(cpu) s of CPU in \(alive)")
        #expect(ProcessCPUTime.of(-1) == nil)
        #expect(ProcessCPUTime.current > 0)
    }

    @Test func theBenchmarkMeasuresBothConfigurations() async throws {
        let result = try await Binary.run(
            "secure-signals-bench",
            [
                "footprint", "--daemon", Binary.path("secure-signalsd"), "--signals", "30", "--ads", "30", "--rounds",
                "1", "--settle-seconds", "0.2",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n")
        for configuration in FootprintBenchmark.Configuration.allCases {
            let line = try #require(lines.first { $0.hasPrefix(configuration.rawValue) }, "\(result.stdoutText)")
            #expect(line.hasSuffix("| 0/60"), "every request answered 2xx: \(line)")
            // ready ms, exit ms, ready/exit, then the idle and after columns: all measured.
            let numbers = line.dropFirst(configuration.rawValue.count).split(separator: " ").compactMap { Double($0) }
            #expect(numbers.count == 13 && numbers.allSatisfy { $0 > 0 }, "\(line)")
        }
        #expect(lines.contains { $0.contains("start to ready <= 100 ms") })
        #expect(lines.contains { $0.hasPrefix("binary: \(Binary.path("secure-signalsd"))") })
    }
}
