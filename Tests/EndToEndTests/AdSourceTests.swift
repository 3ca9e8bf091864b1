import Client
import Foundation
import TestSupport
import Testing

/// OpenRTB and VAST line items that `--check-config` refuses, through the daemon binary (the
/// waterfalls themselves are tested in-process, in AdSourceRouteTests).
@Suite(.serialized)
struct AdSourceTests {
    @Test func badOpenRTBAndVASTLineItemsAreRefusedWhenTheConfigurationIsRead() async throws {
        func unit(_ format: String, _ item: String) -> String {
            #"{"ad_units": {"/u": {"format": "\#(format)", "waterfall": [\#(item)]}}}"#
        }
        try await expectCheckConfigRefuses(
            [
                (
                    unit("native", #"{"network": "openrtb", "parameter": "t"}"#),
                    "ad_units./u.waterfall[0]: option 'endpoint' is required"
                ),
                (
                    unit("native", #"{"network": "openrtb", "parameter": "t", "options": {"endpoint": "ftp://x"}}"#),
                    "option 'endpoint' must be an http(s) URL"
                ),
                (
                    unit(
                        "native",
                        #"{"network": "openrtb", "parameter": "t", "options": {"endpoint": "http://b", "signals": ["ghost"]}}"#
                    ),
                    "option 'signals' names 'ghost', which is not a configured signal adapter"
                ),
                (
                    unit(
                        "native",
                        #"{"network": "openrtb", "parameter": "t", "options": {"endpoint": "http://b", "bidfloor": "1"}}"#
                    ),
                    "ad_units./u.waterfall[0].options.bidfloor: must be a number (a CPM)"
                ),
                (
                    unit(
                        "native",
                        #"{"network": "openrtb", "parameter": "t", "options": {"endpoint": "http://b", "timeout_ms": 0}}"#
                    ),
                    "ad_units./u.waterfall[0].options.timeout_ms: must be between 10 and 60000, not 0"
                ),
                (
                    unit(
                        "rewarded",
                        #"{"network": "vast", "parameter": "http://x", "options": {"reward_amount": "ten"}}"#),
                    "ad_units./u.waterfall[0].options.reward_amount: must be a number"
                ),
                (unit("native", #"{"network": "vast", "parameter": "http://x"}"#), "serves rewarded video"),
                (
                    #"{"ad_networks": {"openrtb": {"setup": {"device": {"devicetype": "tv"}}}}}"#,
                    "ad_networks.openrtb.setup.device.devicetype: must be a whole number"
                ),
                (unit("rewarded", #"{"network": "vast", "parameter": "tag"}"#), "ad tag's http(s) URL"),
                (
                    unit(
                        "native",
                        #"{"network": "openrtb", "parameter": "t", "options": {"endpoint": "http://b", "timeout_ms": 9}}"#
                    ),
                    // A bidder is never asked with less than 10 ms.
                    "ad_units./u.waterfall[0].options.timeout_ms: must be between 10 and 60000, not 9"
                ),
                (
                    // The unit's prices are in USD (its default): a bidder asked for EUR would
                    // be sent the unit's floor as euros and have every bid refused.
                    unit(
                        "native",
                        #"{"network": "openrtb", "parameter": "t", "options": {"endpoint": "http://b", "currency": "EUR"}}"#
                    ),
                    "ad_units./u.waterfall[0]: option 'currency' is EUR, but the ad unit's prices are in USD"
                ),
                (
                    #"{"ad_units": {"/u": {"format": "native", "currency": "EUR", "bidders": [{"network": "openrtb", "parameter": "t", "options": {"endpoint": "http://b", "currency": "USD"}}]}}}"#,
                    "ad_units./u.bidders[0]: option 'currency' is USD, but the ad unit's prices are in EUR"
                ),
            ], in: try TemporaryDirectory())
    }

    @Test func everyOptionErrorOfAFileIsListedInOneCheckConfigRun() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("options.json")
        try """
        {
          "adapters": [{"name": "file", "options": {"max_age": 1000}}],
          "ad_networks": {"house": {"setup": {}}},
          "ad_units": {"/u": {"format": "native", "waterfall": [
            {"network": "openrtb", "parameter": "p", "options": {"endpoint": "http://b", "headers": {"x-seat": 42}}}
          ]}}
        }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await Binary.run("secure-signalsd", ["--config", file, "--check-config"])
        #expect(result.status == 78)
        // A misspelt key, a missing required option and a wrong type, each with its key path.
        #expect(
            result.stderr.split(separator: "\n").map {
                $0.replacingOccurrences(of: "secure-signalsd: \(file): ", with: "")
            }
                == [
                    "adapters[0].options.max_age: unknown key; known: max_age_ms, path, sdk_version",
                    "adapters[0].options.path: is required",
                    "ad_networks.house.setup.directory: is required",
                    "ad_units./u.waterfall[0].options.headers.x-seat: must be a string",
                ], "\(result.stderr)")
    }
}
