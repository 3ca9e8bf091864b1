import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Valgrind's callgrind, which counts the instructions a program runs: unlike its CPU time,
/// the count barely changes with what else the machine is doing, so two runs on a busy
/// machine can be compared.
public struct Callgrind: Sendable {
    /// `valgrind`, found on `PATH`.
    public let valgrind: String
    /// `callgrind_control`, which switches counting on and off in a running program and dumps its counts.
    let control: String
    /// `objcopy`, which makes the copies valgrind can read.
    let objcopy: String
    /// Where the counts are written: `outputPrefix`, `.1`, `.2`... for each dump.
    let outputPrefix: String

    /// Finds valgrind and callgrind_control; the counts go under `directory`. Throws a
    /// message naming the Debian package when they are missing.
    public init(directory: URL) throws {
        guard let valgrind = Self.onPath("valgrind"), let control = Self.onPath("callgrind_control") else {
            throw BenchFailure("valgrind and callgrind_control are not on PATH; install them: apt-get install valgrind")
        }
        guard let objcopy = Self.onPath("objcopy") else {
            throw BenchFailure("objcopy is not on PATH; install it: apt-get install binutils")
        }
        self.valgrind = valgrind
        self.control = control
        self.objcopy = objcopy
        outputPrefix = directory.appendingPathComponent("callgrind.out").path
    }

    /// A new directory of this user's alone (mkdtemp, mode 0700) for the copies and the counts:
    /// what runs under valgrind is never a file another user could have put there.
    public static func scratchDirectory() throws -> URL {
        var template = Array(
            (FileManager.default.temporaryDirectory.path + "/secure-signals-callgrind-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
        }
        guard let made else {
            throw BenchFailure("cannot make a directory under \(FileManager.default.temporaryDirectory.path)")
        }
        return URL(fileURLWithPath: made)
    }

    /// Valgrind's arguments before the program's own: nothing is counted until `instructions(of:during:)`
    /// switches counting on, the threads' counts are summed, and valgrind's messages go to a file.
    public var launcher: [String] {
        [
            valgrind, "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=\(outputPrefix)",
            "--log-file=\(outputPrefix).log",
        ]
    }

    /// The instructions the program `pid` (started with `launcher`) runs, in all its threads,
    /// while `body` runs; what `body` returns beside them.
    public func instructions<Value>(of pid: Int32, during body: () async throws -> Value) async throws -> (
        count: UInt64, value: Value
    ) {
        try await send(["--instr=on"], to: pid)
        try await send(["--zero"], to: pid)
        let value = try await body()
        let before = dumps()
        try await send(["--dump"], to: pid)
        try await send(["--instr=off"], to: pid)
        guard let dump = dumps().subtracting(before).first, let count = Self.total(inDump: dump) else {
            throw BenchFailure("callgrind wrote no count for process \(pid) (see \(outputPrefix).log)")
        }
        return (count, value)
    }

    /// The instructions `executable` runs from its start to its end, counted from the start.
    public func instructions(ofRun executable: String, _ arguments: [String]) async throws -> UInt64 {
        let output = outputPrefix + ".run"
        try? FileManager.default.removeItem(atPath: output)
        let ended = try await ChildProcess.run(
            valgrind,
            ["--tool=callgrind", "--callgrind-out-file=\(output)", "--log-file=\(output).log", executable] + arguments)
        guard ended == .exited(0), let count = Self.total(inDump: output) else {
            throw BenchFailure("\(executable) under callgrind \(ended) (see \(output).log)")
        }
        return count
    }

    /// A copy of `executable` without its debug information, beside the counts: valgrind 3.19
    /// (Debian 12's) gives up on the DWARF 5 that Swift's clang writes, and a count of
    /// instructions needs no line numbers.
    public func countable(_ executable: String) async throws -> String {
        let copy = URL(fileURLWithPath: outputPrefix).deletingLastPathComponent().appendingPathComponent(
            URL(fileURLWithPath: executable).lastPathComponent
        ).path
        let ended = try await ChildProcess.run(objcopy, ["--strip-debug", executable, copy])
        guard ended == .exited(0) else { throw BenchFailure("objcopy --strip-debug \(executable) \(ended)") }
        return copy
    }

    /// The instructions a dump file counts: its `totals:` line.
    static func total(inDump path: String) -> UInt64? {
        guard let contents = FileManager.default.contents(atPath: path) else { return nil }
        let line = String(decoding: contents, as: UTF8.self).split(whereSeparator: \.isNewline).last {
            $0.hasPrefix("totals:")
        }
        return line?.split(separator: " ").last.flatMap { UInt64($0) }
    }

    /// The dump files written so far.
    private func dumps() -> Set<String> {
        let directory = URL(fileURLWithPath: outputPrefix).deletingLastPathComponent()
        let name = URL(fileURLWithPath: outputPrefix).lastPathComponent + "."
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return Set(
            files.filter { $0.hasPrefix(name) && UInt64($0.dropFirst(name.count)) != nil }.map {
                directory.appendingPathComponent($0).path
            })
    }

    /// Runs callgrind_control, within 60 s. It exits 0 whatever happened, and says "OK." even
    /// when vgdb failed: what it printed (both streams) names a process it could not find, and
    /// `instructions` checks the rest by the dump and its plausibility.
    private func send(_ arguments: [String], to pid: Int32) async throws {
        let answer = outputPrefix + ".control"
        try? FileManager.default.removeItem(atPath: answer)
        let run = try await ChildProcess.start(
            control, arguments + ["\(pid)"], standardOutput: .file(answer), standardError: .file(answer))
        guard let ended = await run.exit(within: .seconds(60)) else {
            run.send(SIGKILL)
            throw BenchFailure(
                "callgrind_control \(arguments.joined(separator: " ")) \(pid) did not answer within 60 s")
        }
        let printed = String(decoding: FileManager.default.contents(atPath: answer) ?? Data(), as: UTF8.self)
        guard ended == .exited(0), printed.contains("OK."), !printed.contains("Error:") else {
            let line =
                printed.split(separator: "\n").first { $0.contains("Error") } ?? printed.split(separator: "\n").last
            throw BenchFailure("callgrind_control \(arguments.joined(separator: " ")) \(pid) \(ended): \(line ?? "")")
        }
    }

    private static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}
