import Adapters
import Foundation
import Mediation
import SharedTypes
import TestSupport
import Testing

@testable import Daemon

/// The built-ins' options, decoded by the types that take them when the configuration is read:
/// a misspelt key, a value of the wrong type and a missing required option are configuration
/// errors naming their key paths, all of them in one reading.
@Suite struct OptionConfigurationTests {
    private let scratch = try? TemporaryDirectory()

    private func refusal(_ json: String) -> [String] { configurationRefusal(json, scratch: scratch) }

    @Test func anAdaptersMisspeltWrongOrMissingOptionIsNamedByItsKeyPath() {
        #expect(
            refusal(#"{"adapters": [{"name": "device-context", "options": {"brand": "b", "modle": "m"}}]}"#)
                == ["adapters[0].options.modle: unknown key; known: brand, model, os_release_path"])
        #expect(
            refusal(#"{"adapters": [{"name": "file", "options": {"path": "/tmp/s", "max_age_ms": "an hour"}}]}"#)
                == ["adapters[0].options.max_age_ms: must be a whole number"])
        #expect(
            refusal(#"{"adapters": [{"name": "file", "options": {"path": "/tmp/s", "sdk_version": "beta"}}]}"#)
                == ["adapters[0].options.sdk_version: not a version: beta"])
        #expect(
            refusal(#"{"adapters": [{"name": "signal", "type": "file", "options": {"max_age_ms": 1000}}]}"#)
                == ["adapters[0].options.path: is required"])
        #expect(
            refusal(#"{"adapters": [{"name": "file"}]}"#) == ["adapters[0].options.path: is required"],
            "no options at all are its defaults, which lack the path")
    }

    @Test func everyAdapterOptionErrorIsReportedInOneReading() {
        let errors = refusal(
            """
            {
              "adapters": [
                {"name": "device-context", "options": {"brand": 7, "colour": "red"}},
                {"name": "first-party-id", "options": {"seed": 1}},
                {"name": "file", "options": {"path": ["/tmp/s"]}},
                {"name": "sidecar", "exec": "/bin/true", "options": {"anything": {"the": "program's"}}}
              ]
            }
            """)
        #expect(
            errors == [
                "adapters[0].options.colour: unknown key; known: brand, model, os_release_path",
                "adapters[0].options.brand: must be a string",
                "adapters[1].options.seed: unknown key; known: scope",
                "adapters[2].options.path: must be a string",
            ], "\(errors)")
    }

    @Test func aBuiltInsOptionsAreDecodedOnceWithTheirPathsMadeAbsolute() throws {
        let scratch = try TemporaryDirectory()
        let configuration = try ResolvedConfiguration.load(
            json: Data(
                #"{"socket": {"path": "\#(scratch.path("s.sock"))"}, "state_directory": "\#(scratch.path("state"))", "adapters": [{"name": "file", "options": {"path": "signals/a", "max_age_ms": 5}}]}"#
                    .utf8),
            file: "daemon.json", directory: scratch.url, registry: BuiltinAdapters.registry)
        let options = try #require(configuration.collector.adapters.first?.options)
        #expect(
            options
                == (try FileSignalAdapter.decodeOptions(["path": .string(scratch.path("signals/a")), "max_age_ms": 5])))
        #expect(options != (try FileSignalAdapter.decodeOptions(["path": "signals/a", "max_age_ms": 5])))
    }

    @Test func aNetworksSetupOrALineItemsMisspeltWrongOrMissingOptionIsNamedByItsKeyPath() {
        func unit(_ item: String) -> String {
            #"{"ad_units": {"/u": {"format": "native", "waterfall": [\#(item)]}}}"#
        }
        #expect(
            refusal(#"{"ad_networks": {"openrtb": {"setup": {"app": {"bundel": "tv.example"}}}}}"#)
                == [
                    "ad_networks.openrtb.setup.app.bundel: unknown key; known: bundle, id, name, publisher_id, storeurl, ver"
                ])
        #expect(
            refusal(#"{"ad_networks": {"test": {"setup": {"tracks_itself": "yes"}}}}"#)
                == ["ad_networks.test.setup.tracks_itself: must be true or false"])
        #expect(refusal(#"{"ad_networks": {"house": {}}}"#) == ["ad_networks.house.setup.directory: is required"])
        #expect(
            refusal(
                unit(
                    #"{"network": "openrtb", "parameter": "p", "options": {"endpoint": "http://b", "signals": "file"}}"#
                ))
                == ["ad_units./u.waterfall[0].options.signals: must be an array"])
        #expect(
            refusal(unit(#"{"network": "test", "parameter": "p", "options": {"behavior": "explode"}}"#))
                == [
                    #"ad_units./u.waterfall[0].options.behavior: must be one of no_fill, error, hang, timeout, complete_twice, dismiss_first, reward_at_midpoint, not "explode""#
                ])
        #expect(
            refusal(
                unit(
                    #"{"network": "openrtb", "parameter": "p", "options": {"endpoint": "http://b", "currency": "usd"}}"#
                ))
                == [#"ad_units./u.waterfall[0].options.currency: must be an ISO 4217 code such as USD, not "usd""#])
    }

    @Test func everyOptionErrorOfAFileIsReportedInOneReading() {
        let errors = refusal(
            """
            {
              "adapters": [{"name": "device-context", "options": {"brnd": "b"}}],
              "ad_networks": {"house": {"setup": {}}, "openrtb": {"setup": {"device": {"w": "wide"}}}},
              "ad_units": {
                "/n": {"format": "native", "waterfall": [
                  {"network": "test", "parameter": "p", "options": {"delay_ms": 1.5}},
                  {"network": "openrtb", "parameter": "p", "options": {"endpoint": "http://b", "bidfloor": -1}}
                ]},
                "/r": {"format": "rewarded", "waterfall": [
                  {"network": "vast", "parameter": "http://127.0.0.1/vast", "options": {"reward_amount": "ten", "timeout": 5}}
                ]}
              }
            }
            """)
        #expect(
            errors == [
                "adapters[0].options.brnd: unknown key; known: brand, model, os_release_path",
                "ad_networks.house.setup.directory: is required",
                "ad_networks.openrtb.setup.device.w: must be a whole number",
                "ad_units./n.waterfall[0].options.delay_ms: must be a whole number, not 1.5",
                "ad_units./n.waterfall[1].options.bidfloor: must be a CPM from 0 to 1000000, not -1",
                "ad_units./r.waterfall[0].options.timeout: unknown key; known: reward_amount, reward_type, test_tag, timeout_ms",
                "ad_units./r.waterfall[0].options.reward_amount: must be a number",
            ], "\(errors)")
    }

    @Test func lineItemsAndNetworksHoldTheirDecodedOptions() throws {
        let scratch = try TemporaryDirectory()
        let configuration = try ResolvedConfiguration.load(
            json: Data(
                """
                {"socket": {"path": "\(scratch.path("s.sock"))"}, "state_directory": "\(scratch.path("state"))",
                 "ad_networks": {"house": {"setup": {"directory": "ads"}}},
                 "ad_units": {"/u": {"format": "native", "waterfall": [
                   {"network": "openrtb", "parameter": "p", "options": {"endpoint": "http://b", "bidfloor": 2}},
                   {"network": "house", "parameter": "*"}]}}}
                """.utf8),
            file: "daemon.json", directory: scratch.url, registry: BuiltinAdapters.registry)
        let items = try #require(configuration.mediation.units.first?.waterfall)
        #expect(
            items.first?.options
                == (try OpenRTBAdNetwork.decodeLineItemOptions(["endpoint": "http://b", "bidfloor": 2])))
        #expect(items.last?.options == (try HouseAdNetwork.decodeLineItemOptions([:])))
        let house = try #require(configuration.mediation.networks.first { $0.name == "house" })
        #expect(house.setup == (try HouseAdNetwork.decodeSetup(["directory": .string(scratch.path("ads"))])))
        // A network only line items name is set up with its defaults, decoded alike.
        let openrtb = try #require(configuration.mediation.networks.first { $0.name == "openrtb" })
        #expect(openrtb.setup == (try OpenRTBAdNetwork.decodeSetup([:])))
    }
}
