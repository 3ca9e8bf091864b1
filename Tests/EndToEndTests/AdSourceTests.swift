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
                    "option 'bidfloor' must be a number"
                ),
                (
                    unit(
                        "native",
                        #"{"network": "openrtb", "parameter": "t", "options": {"endpoint": "http://b", "timeout_ms": 0}}"#
                    ),
                    "option 'timeout_ms' must be 1 to 60000"
                ),
                (
                    unit(
                        "rewarded",
                        #"{"network": "vast", "parameter": "http://x", "options": {"reward_amount": "ten"}}"#),
                    "option 'reward_amount' must be a number"
                ),
                (unit("native", #"{"network": "vast", "parameter": "http://x"}"#), "serves rewarded video"),
                (
                    #"{"ad_networks": {"openrtb": {"setup": {"device": {"devicetype": "tv"}}}}}"#,
                    "ad_networks.openrtb.setup: option 'devicetype' must be a whole number"
                ),
                (unit("rewarded", #"{"network": "vast", "parameter": "tag"}"#), "ad tag's http(s) URL"),
                (
                    unit(
                        "native",
                        #"{"network": "openrtb", "parameter": "t", "options": {"endpoint": "http://b", "timeout_ms": 9}}"#
                    ),
                    "option 'timeout_ms' must be at least 10: a bidder is never asked with less"
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
}
