import Foundation
import Testing

/// The module rules of docs/architecture.md, read off the sources' imports.
struct ArchitectureTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    static let project = [
        "CLibCrypto", "CLibXML2", "SignalCrypto", "Timing", "SharedTypes", "SecureSignals", "Mediation", "VAST",
        "Adapters",
        "Daemon", "Client", "Bench", "WireFormatMacros", "StateStore", "Consent", "API",
        "Inspector", "OutboundHTTP",
    ]
    static let http = ["Hummingbird", "HummingbirdCore", "AsyncHTTPClient", "NIOCore", "NIOPosix", "NIOHTTP1"]
    /// Foundation beyond FoundationEssentials: its internationalization layer and ICU's data,
    /// which would make a static binary several times its size (docs/packaging.md). No module
    /// imports it (`noModuleImportsFoundation`).
    static let foundation = ["Foundation", "FoundationXML", "FoundationNetworking"]

    /// What each module may not import.
    static let forbidden: [String: [String]] = [
        "Timing": project,
        "WireFormatMacros": project,
        "SharedTypes": project + foundation,
        "SignalCrypto": project.filter { $0 != "CLibCrypto" } + foundation,
        "VAST": project.filter { !["CLibXML2", "SharedTypes"].contains($0) },
        "Consent": project.filter { $0 != "SharedTypes" },
        "API": project.filter { $0 != "SharedTypes" } + foundation + http,
        "Inspector": project.filter { $0 != "SharedTypes" } + foundation + http,
        "SecureSignals": ["Mediation", "Adapters", "Daemon", "Client", "Bench"] + http,
        "Mediation": [
            "SecureSignals", "SignalCrypto", "CLibCrypto", "Adapters", "Daemon", "Client", "Bench", "StateStore",
            "SQLiteNIO",
        ] + http,
        "StateStore": ["SecureSignals", "SignalCrypto", "CLibCrypto", "Adapters", "Daemon", "Client", "Bench"] + http
            + foundation,
        "Adapters": ["Daemon", "Client", "Bench"] + http,
        // AsyncHTTPClient, with the HTTP/2, swift-configuration and swift-algorithms it links,
        // would take the daemon past its 25 MiB (docs/packaging.md): it reaches servers through
        // OutboundHTTP, which uses only NIO's HTTP/1 codec and NIOSSL.
        "Daemon": ["Client", "Bench", "AsyncHTTPClient"],
        "OutboundHTTP": project + ["AsyncHTTPClient"],
        "Client": ["SecureSignals", "Mediation", "Adapters", "Daemon", "Bench", "Hummingbird", "ServiceLifecycle"]
            + foundation,
        "Bench": ["Daemon"],
        "secure-signals": ["Bench", "Daemon", "Hummingbird", "ServiceLifecycle"] + foundation,
    ]

    /// The modules `module`'s sources import.
    static func imports(of module: String) throws -> Set<String> {
        let directory = sources.appendingPathComponent(module)
        let files = try #require(FileManager.default.enumerator(atPath: directory.path)).compactMap { $0 as? String }
        var imports = Set<String>()
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            // An `#else` branch is another platform's (`import Foundation` where FoundationEssentials
            // is missing): what this one builds is the rest.
            var otherPlatform = false
            for line in text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                if line.hasPrefix("#else") { otherPlatform = true }
                if line.hasPrefix("#endif") { otherPlatform = false }
                guard !otherPlatform, line.hasPrefix("import ") || line.hasPrefix("@testable import ") else { continue }
                imports.insert(String(line.split(separator: " ").last ?? ""))
            }
        }
        return imports
    }

    /// Every module builds on FoundationEssentials: Foundation's internationalization layer and
    /// ICU's data would more than double a static binary.
    @Test func noModuleImportsFoundation() throws {
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path)
        #expect(modules.count > 10)
        for module in modules.sorted() {
            let found = try Self.imports(of: module).intersection(Self.foundation)
            #expect(found.isEmpty, "\(module) imports \(found.sorted())")
        }
    }

    @Test(arguments: forbidden.keys.sorted())
    func aModuleImportsOnlyWhatItMay(module: String) throws {
        let found = try Self.imports(of: module)
        #expect(!found.isEmpty, "no sources found for \(module)")
        #expect(found.intersection(Self.forbidden[module] ?? []).isEmpty, "\(module) imports \(found.sorted())")
    }

    /// The socket API's paths are spelled once, in the API module's endpoint table: no other
    /// module writes one (a client calls `Endpoints.x.path(...)`, the daemon registers `Endpoints.x`).
    @Test func noModuleButAPISpellsAnAPIPath() throws {
        let files = try #require(FileManager.default.enumerator(atPath: Self.sources.path)).compactMap { $0 as? String }
        var spelled: [String] = []
        for file in files where file.hasSuffix(".swift") && !file.hasPrefix("API/") {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n")
            where line.contains("\"/v1/") && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                spelled.append("\(file): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(spelled.isEmpty, "\(spelled)")
    }

    /// A configuration key is declared once (`@Settings`): a hand-written decoder under
    /// Daemon/Configuration is for keys whose presence depends on another, and says so.
    @Test func configurationSectionsAreDeclaredNotDecodedByHand() throws {
        let directory = Self.sources.appendingPathComponent("Daemon/Configuration")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".swift")
        }
        var decoders = 0
        for file in files {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() where line.contains("init(from decoder") {
                decoders += 1
                let said =
                    index > 0 && lines[index - 1].contains("Written by hand")
                    || index > 1 && lines[index - 2].contains("Written by hand")
                #expect(said, "\(file):\(index + 1) decodes by hand without saying why (\"Written by hand: ...\")")
            }
        }
        #expect(decoders <= 5, "\(decoders) hand-written decoders under Daemon/Configuration (at most 5)")
    }

    /// Tests wait for events, not for time: at most 12 sleeps in the tests (fake servers' delays,
    /// the one polling helper, a load's moment of death), none waiting for "nothing happened".
    @Test func testsSleepAtMostTwelveTimes() throws {
        let tests = Self.sources.deletingLastPathComponent().appendingPathComponent("Tests")
        let files = try #require(FileManager.default.enumerator(atPath: tests.path)).compactMap { $0 as? String }
        var sleeps: [String] = []
        let sleep = try Regex(#"Task\.sleep|[^a-zA-Z.]sleep\(|usleep\("#)
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where line.contains(sleep) {
                sleeps.append("\(file): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(sleeps.count <= 12, "\(sleeps.count) sleeps: \(sleeps)")
    }

    /// Programs are started through `ChildProcess` (Bench), never Foundation's `Process`: its
    /// end of a socket pair leaked into children spawned beside it, so an exit went unseen for
    /// minutes, and `waitUntilExit` held a thread of the cooperative pool meanwhile (a test run
    /// on two busy cores stalled whole).
    @Test func programsAreStartedThroughChildProcess() throws {
        let root = Self.sources.deletingLastPathComponent()
        var found: [String] = []
        let foundationProcess = try Regex(#"(^|[^A-Za-z.])Process\(\)|waitUntilExit|terminationHandler"#)
        for folder in ["Sources", "Tests"] {
            let directory = root.appendingPathComponent(folder)
            let files = try #require(FileManager.default.enumerator(atPath: directory.path)).compactMap {
                $0 as? String
            }
            for file in files where file.hasSuffix(".swift") && !file.hasSuffix("ArchitectureTests.swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") where line.contains(foundationProcess) {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    if !code.hasPrefix("//") { found.append("\(folder)/\(file): \(code)") }
                }
            }
        }
        #expect(found.isEmpty, "\(found)")
    }

    /// Background work is structured: at most 8 unstructured `Task {` in the sources (work
    /// callers join, what must outlive a cancelled caller, and the primitives that own the
    /// rest), each under a comment, within 4 lines, saying who ends it.
    @Test func unstructuredTasksAreFewAndEachSaysWhoEndsIt() throws {
        let files = try #require(FileManager.default.enumerator(atPath: Self.sources.path)).compactMap { $0 as? String }
        var tasks: [String] = []
        var uncommented: [String] = []
        let task = try Regex(#"(^|[^A-Za-z.])Task \{"#)
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//"), line.contains(task) else { continue }
                tasks.append("\(file):\(number + 1)")
                let above = lines[max(0, number - 4)..<number].map { $0.trimmingCharacters(in: .whitespaces) }
                if !above.contains(where: { $0.hasPrefix("//") }) { uncommented.append("\(file):\(number + 1)") }
            }
        }
        #expect(tasks.count <= 8, "\(tasks.count) unstructured tasks: \(tasks.sorted())")
        #expect(uncommented.isEmpty, "no comment says who ends: \(uncommented.sorted())")
    }

    /// One concept a file: no source file grows past 400 lines (split it by concern instead).
    @Test func noSourceFileIsOver400Lines() throws {
        let files = try #require(FileManager.default.enumerator(atPath: Self.sources.path)).compactMap { $0 as? String }
        var long: [String] = []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - 1
            if lines > 400 { long.append("\(file): \(lines) lines") }
        }
        #expect(long.isEmpty, "\(long.sorted())")
    }
}
