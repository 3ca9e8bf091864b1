import Foundation
import Testing

/// The module rules of docs/architecture.md, read off the sources' imports.
struct ArchitectureTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    static let project = [
        "CLibCrypto", "SignalCrypto", "Timing", "SharedTypes", "SecureSignals", "Mediation", "VAST", "Adapters",
        "Daemon", "Client", "Bench", "WireFormatMacros", "StateStore", "Consent",
    ]
    static let http = ["Hummingbird", "HummingbirdCore", "AsyncHTTPClient", "NIOCore", "NIOPosix", "NIOHTTP1"]

    /// What each module may not import.
    static let forbidden: [String: [String]] = [
        "Timing": project,
        "WireFormatMacros": project,
        "SharedTypes": project,
        "SignalCrypto": project.filter { $0 != "CLibCrypto" },
        "VAST": project,
        "Consent": project.filter { $0 != "SharedTypes" },
        "SecureSignals": ["Mediation", "Adapters", "Daemon", "Client", "Bench"] + http,
        "Mediation": [
            "SecureSignals", "SignalCrypto", "CLibCrypto", "Adapters", "Daemon", "Client", "Bench", "StateStore",
            "GRDB",
        ] + http,
        "StateStore": ["SecureSignals", "SignalCrypto", "CLibCrypto", "Adapters", "Daemon", "Client", "Bench"] + http,
        "Adapters": ["Daemon", "Client", "Bench"] + http,
        "Daemon": ["Client", "Bench"],
        "Client": ["SecureSignals", "Mediation", "Adapters", "Daemon", "Bench", "Hummingbird", "ServiceLifecycle"],
        "Bench": ["Daemon"],
        "secure-signals": ["Bench", "Daemon", "Hummingbird", "ServiceLifecycle"],
    ]

    /// The modules `module`'s sources import.
    static func imports(of module: String) throws -> Set<String> {
        let directory = sources.appendingPathComponent(module)
        let files = try #require(FileManager.default.enumerator(atPath: directory.path)).compactMap { $0 as? String }
        var imports = Set<String>()
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n")
            where line.hasPrefix("import ") || line.hasPrefix("@testable import ") {
                imports.insert(String(line.split(separator: " ").last ?? ""))
            }
        }
        return imports
    }

    @Test(arguments: forbidden.keys.sorted())
    func aModuleImportsOnlyWhatItMay(module: String) throws {
        let found = try Self.imports(of: module)
        #expect(!found.isEmpty, "no sources found for \(module)")
        #expect(found.intersection(Self.forbidden[module] ?? []).isEmpty, "\(module) imports \(found.sorted())")
    }
}
