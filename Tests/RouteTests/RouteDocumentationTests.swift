import API
import Foundation
import SharedTypes
import TestSupport
import Testing

@testable import Daemon

/// The routes the router holds are the routes docs/api.md and docs/openapi.yaml document.
struct RouteDocumentationTests {
    @Test func theRouterTheAPIReferenceAndTheOpenAPISpecNameTheSameRoutes() async throws {
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
        #expect(registered.count == 31)
        // The daemon serves exactly the API module's endpoints (and /metrics beside them).
        #expect(registered.filter { $0.contains(" /v1/") } == Set(Endpoints.all.map(\.description)))
        #expect(
            registered == documented,
            "router only: \(registered.subtracting(documented)); docs only: \(documented.subtracting(registered))")
        let specified = try openAPIOperations()
        #expect(
            registered == specified,
            "router only: \(registered.subtracting(specified)); spec only: \(specified.subtracting(registered))")
    }

    /// Every code an error answer may carry (`APIErrorCode`, which every failure's code is) is
    /// in the API reference, where clients look it up, and is the OpenAPI spec's list.
    @Test func everyErrorCodeIsDocumented() throws {
        let reference = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/api.md"), encoding: .utf8)
        let missing = APIErrorCode.allCases.filter { !reference.contains("`\($0.rawValue)`") }
        #expect(missing.isEmpty, "not in docs/api.md: \(missing.map(\.rawValue))")
        // The OpenAPI spec's error codes are the same list, in the same order.
        let spec = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        let listed = try #require(spec.range(of: #"enum: \[invalid_request[^\]]*\]"#, options: .regularExpression))
        let codes = spec[listed].dropFirst("enum: [".count).dropLast().split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(codes == APIErrorCode.allCases.map(\.rawValue), "docs/openapi.yaml Error.code")
    }

    @Test func theOpenAPISpecCarriesTheDaemonsVersion() throws {
        let spec = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        #expect(spec.contains("\n  version: \(DaemonVersion.current)\n"))
    }

    /// "METHOD /path" of each operation under the spec's `paths`: a path is a key indented two
    /// spaces, an operation a method key indented four below it (the file keeps that layout;
    /// openapi-spec-validator in CI checks the rest).
    private func openAPIOperations() throws -> Set<String> {
        let spec = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        let lines = spec.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "paths:") else { return [] }
        let methods: Set<Substring> = ["get", "put", "post", "delete", "patch", "head", "options"]
        var operations = Set<String>()
        var path: Substring?
        for line in lines[(start + 1)...] {
            if let first = line.first, first != " ", first != "#" { break }  // the next top-level key
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = line.dropFirst(2).dropLast()
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":"),
                methods.contains(line.dropFirst(4).dropLast()), let path
            {
                operations.insert("\(line.dropFirst(4).dropLast().uppercased()) \(path)")
            }
        }
        return operations
    }

    @Test func theTestbedAddsOnlyItsClock() async throws {
        let daemon = try await InProcessDaemon(config: [:], testbed: true)
        let testbedOnly = daemon.application.routes.routes.filter { $0.pattern.hasPrefix("/testbed") }
        #expect(testbedOnly.map(\.pattern) == ["/testbed/clock"])
    }
}
