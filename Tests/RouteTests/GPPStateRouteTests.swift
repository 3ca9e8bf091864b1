import Client
import Foundation
import TestSupport
import Testing

/// Every US state section through the daemon (ConsentRouteTests' configuration: `first-party-id`
/// as an identifier, an OpenRTB unit attaching it to a real local bidder): for the section in
/// force, an opt-out denies the identifier and the bidder gets neither it nor a personalised
/// request, while `regs.gpp` and `gpp_sid` reach it as set; an all-clear section lets both
/// through. A string refused keeps the state in force.
struct GPPStateRouteTests: MediationScenario {
    @Test func eachStateSectionGatesTheIdentifierAndTheBidRequest() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        server.answer("/bid", .init(body: try AdSourceRouteTests.nativeBid(server, price: 1)))
        let daemon = try await InProcessDaemon(config: ConsentRouteTests.config(server))
        try await daemon.run { client in
            for id in 8...27 {
                let name = try #require(ConsentStrings.usNames[id])
                for optedOut in [false, true] {
                    let gpp = ConsentStrings.usState(id, optedOut ? ["SaleOptOut": 1] : [:])
                    let label = "\(name)\(optedOut ? ", opted out of sale" : "")"
                    try await ConsentRouteTests.put(client, ["gpp": gpp, "gpp_sid": [id]])
                    let result = try await client.collect(requestID: "\(id)-\(optedOut)", adapters: ["first-party-id"])
                    let denial = optedOut ? "GPP \(name): SaleOptOut = 1 (the user opted out of sale)" : nil
                    #expect(result.errors.first?.message == denial, "\(label)")
                    #expect(result.errors.first?.code.rawValue == (optedOut ? "consent_missing" : nil), "\(label)")
                    #expect(result.signals.isEmpty == optedOut, "\(label)")

                    let load = try await Self.post(
                        client, "/v1/ads", ["ad_unit": ConsentRouteTests.unit, "format": "native", "force": true])
                    let mode = (load.json["response_info"] as? [String: Any])?["serving_mode"] as? String
                    #expect(mode == (optedOut ? "non_personalized" : "personalized"), "\(label): \(load.json)")
                    let bid = try #require(server.requests("/bid").last?.json, "\(label)")
                    let regs = bid["regs"] as? [String: Any]
                    #expect(regs?["gpp"] as? String == gpp, "\(label)")
                    #expect(regs?["gpp_sid"] as? [Int] == [id], "\(label)")
                    let attached = ((bid["user"] as? [String: Any])?["ext"] as? [String: Any])?["secure_signals"]
                    let sources = Set((attached as? [[String: Any]] ?? []).compactMap { $0["source"] as? String })
                    #expect(sources.contains("first-party-id") == !optedOut, "\(label)")
                    #expect(sources.contains("device-context"), "\(label)")
                    #expect((bid["device"] as? [String: Any])?["ifa"] == nil, "\(label)")
                }
            }
        }
    }

    @Test func anInvalidStringIsRefusedNamingSectionAndFieldAndTheStateInForceStays() async throws {
        let server = try await FakeAdServer()
        let daemon = try await InProcessDaemon(config: ConsentRouteTests.config(server))
        try await daemon.run { client in
            let texas = ConsentStrings.usState(16, ["TargetedAdvertisingOptOut": 1], gpc: false)
            try await ConsentRouteTests.put(client, ["gpp": texas, "gpp_sid": [16]])
            let before = try await client.request(.GET, "/v1/privacy").body
            let refusals: [(String, String)] = [
                (
                    "DBABEw~BVWSSVWAA",
                    "gpp: section ustx: the core has 12 bits past its last field (MspaServiceProviderMode), "
                        + "more than padding: a section of the wrong length"
                ),
                (
                    ConsentStrings.header(sections: [7, 16]) + "~BVWSSVWA",
                    "gpp: section header: SectionIds names section ustx (16), which the string does not carry"
                ),
                ("DBABSYA~BVVV.k", "gpp: section usri: ends at bit 6, needs 16 for SensitiveDataProcessing"),
            ]
            for (gpp, message) in refusals {
                let reply = try await client.request(
                    .PUT, "/v1/privacy", json: try ConsentRouteTests.body(["gpp": gpp, "gpp_sid": [16]]))
                #expect(reply.status == 400, "\(gpp)")
                #expect(reply.apiError?.code == "invalid_consent", "\(gpp)")
                #expect(reply.apiError?.message.contains(message) == true, "\(reply.apiError?.message ?? "")")
                #expect(!(reply.apiError?.message.contains(gpp) ?? true), "the string itself is not echoed")
                #expect(try await client.request(.GET, "/v1/privacy").body == before, "\(gpp)")
            }
            // Still decided by the Texas section in force.
            let result = try await client.collect(requestID: "after", adapters: ["first-party-id"])
            #expect(
                result.errors.first?.message
                    == "GPP ustx: TargetedAdvertisingOptOut = 1 (the user opted out of targeted advertising)")
        }
    }
}
