import Foundation
import TestSupport
import Testing

@testable import Daemon

/// The routes the router holds are the routes docs/api.md documents.
struct RouteDocumentationTests {
    @Test func theRouterAndTheAPIReferenceNameTheSameRoutes() async throws {
        let daemon = try await InProcessDaemon(config: [:], testbed: false)
        let registered = Set(
            daemon.application.routes.routes.flatMap { route in
                route.methods.map { "\($0.rawValue) \(route.pattern)" }
            })
        let reference = try String(
            contentsOf: repositoryRoot.appendingPathComponent("docs/api.md"), encoding: .utf8)
        let row = try Regex(#"^\| `([A-Z]+)` \| `(/[^`]*)` \|"#).anchorsMatchLineEndings()
        let documented = Set(
            reference.matches(of: row).map { "\($0.output[1].substring ?? "") \($0.output[2].substring ?? "")" })
        #expect(registered.count == 17)
        #expect(
            registered == documented,
            "router only: \(registered.subtracting(documented)); docs only: \(documented.subtracting(registered))")
    }

    @Test func theTestbedAddsOnlyItsClock() async throws {
        let daemon = try await InProcessDaemon(config: [:], testbed: true)
        let testbedOnly = daemon.application.routes.routes.filter { $0.pattern.hasPrefix("/testbed") }
        #expect(testbedOnly.map(\.pattern) == ["/testbed/clock"])
    }
}
