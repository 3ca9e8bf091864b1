import Adapters
import Foundation
import Logging
import Mediation
import SharedTypes
import TestSupport
import Testing

/// The advertising id source on real files and real programs (shell scripts): what it reads,
/// when it reads again (on a clock the test moves), and what it does with what it cannot read:
/// nil, a warning once per reason, and never the id in the log.
struct AdvertisingIDSourceTests {
    static let ifa = "6d92078a-8246-4ba4-ae5b-76104861e7dc"
    static let other = "0e3f5b4c-9d1a-4a57-b3a2-5f0d7c1e2b99"
    /// A program's time when what is tested is not its timeout: a busy machine starts programs slowly.
    static let generous = 30_000

    let directory: TemporaryDirectory
    let clock = ManualClock()
    let log = CapturedLog()

    init() throws {
        directory = try TemporaryDirectory()
    }

    func provider(_ settings: AdvertisingIDSettings) -> AdvertisingIDProvider<ManualClock> {
        AdvertisingIDProvider(settings: settings, clock: clock, logger: log.logger())
    }

    func write(_ text: String, to name: String = "advertising-id.json") throws {
        try Data(text.utf8).write(to: directory.url.appendingPathComponent(name))
    }

    /// A shell script in the test's directory, executable.
    func script(_ name: String, _ body: String) throws -> String {
        let path = directory.path(name)
        try Data("#!/bin/sh\n\(body)\n".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    @Test func aFileInFireboltsShapeIsReadAndReadAgainOnlyOnceItIsStale() async throws {
        try write(#"{"ifa": "\#(Self.ifa)", "ifa_type": "sspid", "lmt": "0"}"#)
        let source = provider(
            AdvertisingIDSettings(file: directory.path("advertising-id.json"), refreshMilliseconds: 60_000))
        #expect(await source.current() == AdvertisingID(ifa: Self.ifa, type: .sspid, limitAdTracking: false))
        // The platform resets the id and the user limits ad tracking: the reading holds a minute.
        try write(#"{"ifa": "\#(Self.other)", "lmt": 1}"#)
        clock.advance(by: .seconds(59))
        #expect(await source.current()?.ifa == Self.ifa)
        clock.advance(by: .seconds(1))
        // No ifa_type: the configured type (dpid); lmt 1: limited (the file's id as it is).
        #expect(await source.current() == AdvertisingID(ifa: Self.other, type: .dpid, limitAdTracking: true))
        #expect(!log.text.contains(Self.ifa) && !log.text.contains(Self.other))
    }

    @Test func aBareIDOnOneLineIsOfTheConfiguredTypeAndAnIDOfZerosIsLimited() async throws {
        try write("\(Self.ifa)\n", to: "ifa")
        let bare = provider(AdvertisingIDSettings(file: directory.path("ifa"), type: .ppid))
        #expect(await bare.current() == AdvertisingID(ifa: Self.ifa, type: .ppid, limitAdTracking: false))
        try write(#"{"ifa": "\#(AdvertisingID.zeros)", "ifa_type": "dpid", "lmt": false}"#, to: "zeros")
        let zeros = provider(AdvertisingIDSettings(file: directory.path("zeros")))
        #expect(await zeros.current()?.limitAdTracking == true)
    }

    @Test func whatCannotBeReadIsNilWithAWarningOncePerReasonAndNeverTheContent() async throws {
        let path = directory.path("advertising-id.json")
        let source = provider(AdvertisingIDSettings(file: path, refreshMilliseconds: 1000))
        #expect(await source.current() == nil)
        clock.advance(by: .seconds(1))
        #expect(await source.current() == nil)
        let missing = log.lines.filter { $0.hasPrefix("warning") }
        #expect(missing.count == 1, "\(log.lines)")
        #expect(missing.first?.contains("reason=it does not exist") == true)
        #expect(missing.first?.contains("source=\(path)") == true)
        // Garbage that happens to hold the id: refused, and the log says why, not what.
        try write(#"{"ifa": "\#(Self.ifa) with spaces", "lmt": 0}"#)
        clock.advance(by: .seconds(1))
        #expect(await source.current() == nil)
        try write(#"{"id": "\#(Self.ifa)"}"#)
        clock.advance(by: .seconds(1))
        #expect(await source.current() == nil)
        try write(String(repeating: "a", count: 5000))
        clock.advance(by: .seconds(1))
        #expect(await source.current() == nil)
        try write(#"{"ifa": "\#(Self.ifa)", "lmt": 0}"#)
        clock.advance(by: .seconds(1))
        #expect(await source.current()?.ifa == Self.ifa)
        let warnings = log.lines.filter { $0.hasPrefix("warning") }
        #expect(warnings.count == 4, "\(log.lines)")
        #expect(warnings.contains { $0.contains("printable ASCII") })
        #expect(warnings.contains { $0.contains("not a JSON object") })
        #expect(warnings.contains { $0.contains("more than 4096 bytes") })
        #expect(log.lines.contains { $0.hasPrefix("notice") && $0.contains("can be read again") })
        #expect(!log.text.contains(Self.ifa))
    }

    @Test func aProgramsOutputIsReadAndItsChangesAfterTheRefresh() async throws {
        let state = directory.path("current")
        try write(Self.ifa, to: "current")
        let program = try script(
            "ifa", #"printf '{"ifa": "%s", "ifa_type": "%s", "lmt": 0}\n' "$(cat \#(state))" "$1""#)
        let source = provider(
            AdvertisingIDSettings(
                program: [program, "sessionid"], refreshMilliseconds: 5000, timeoutMilliseconds: Self.generous))
        #expect(await source.current() == AdvertisingID(ifa: Self.ifa, type: .sessionid, limitAdTracking: false))
        try write(Self.other, to: "current")
        #expect(await source.current()?.ifa == Self.ifa)
        clock.advance(by: .seconds(5))
        #expect(await source.current()?.ifa == Self.other)
        #expect(!log.text.contains(Self.ifa) && !log.text.contains(Self.other))
    }

    @Test func callersAskingTogetherShareOneRunOfTheProgram() async throws {
        let runs = directory.path("runs")
        let program = try script("ifa", "echo run >> \(runs)\nsleep 0.2\necho \(Self.ifa)")
        let source = provider(AdvertisingIDSettings(program: [program], timeoutMilliseconds: Self.generous))
        let ids = await withTaskGroup(of: AdvertisingID?.self) { group in
            for _ in 0..<5 { group.addTask { await source.current() } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(ids.count == 5 && ids.allSatisfy { $0?.ifa == Self.ifa })
        #expect(try String(contentsOfFile: runs, encoding: .utf8) == "run\n")
    }

    @Test func aProgramThatFailsTakesTooLongOrSaysTooMuchGivesNil() async throws {
        let failing = try script("failing", "echo \(Self.ifa)\nexit 3")
        #expect(
            await provider(AdvertisingIDSettings(program: [failing], timeoutMilliseconds: Self.generous)).current()
                == nil)
        let slow = try script("slow", "sleep 5\necho \(Self.ifa)")
        let started = ContinuousClock.now
        #expect(await provider(AdvertisingIDSettings(program: [slow], timeoutMilliseconds: 200)).current() == nil)
        #expect(ContinuousClock.now - started < .seconds(4), "the program's timeout ends the wait")
        let chatty = try script("chatty", "yes a | head -c 10000")
        #expect(
            await provider(AdvertisingIDSettings(program: [chatty], timeoutMilliseconds: Self.generous)).current()
                == nil)
        let warnings = log.lines.filter { $0.hasPrefix("warning") }
        #expect(warnings.contains { $0.contains("exited with status 3") }, "\(log.lines)")
        #expect(warnings.contains { $0.contains("did not finish within 200 ms") }, "\(log.lines)")
        #expect(warnings.contains { $0.contains("more than 4096 bytes") }, "\(log.lines)")
        #expect(!log.text.contains(Self.ifa))
    }
}
