import Adapters
import Consent
import Foundation
import SharedTypes
import TestSupport
import Testing

@testable import Daemon

/// The configuration read strictly: what Foundation's JSON parser lets through, options the
/// built-ins do not take, and every error of a file at once.
@Suite struct StrictConfigurationTests {
    @Test func aTrailingCommaOrANameGivenTwiceIsFoundWithItsPath() {
        let cases: [(String, JSONStrictness.Violation?)] = [
            (#"{"a": 1}"#, nil),
            (#"{"a": [1, 2], "b": {"c": "x,}"}}"#, nil),
            (#"{"a": "q\"a\"", "b": 1}"#, nil),
            (#"{"a": 1,}"#, .init(path: "", offset: 7, kind: .trailingComma)),
            (#"{"a": {"b": [1, 2 , ]}}"#, .init(path: "a.b", offset: 18, kind: .trailingComma)),
            (#"{"a": 1, "a": 2}"#, .init(path: "a", offset: 9, kind: .nameTwice)),
            (
                #"{"x": [{"a": 1}, {"b": 1, "b": 2}]}"#,
                .init(path: "x[1].b", offset: 26, kind: .nameTwice)
            ),
            // One name, two spellings: JSON means the same name.
            (#"{"a": 1, "\u0061": 2}"#, .init(path: "a", offset: 9, kind: .nameTwice)),
            // The same name in two objects is two names.
            (#"{"a": {"k": 1}, "b": {"k": 1}}"#, nil),
            // Not JSON at all: left to Foundation, and no crash.
            ("}}]]", nil), ("{\"a", nil), ("", nil),
        ]
        for (text, expected) in cases {
            #expect(JSONStrictness.firstViolation(in: Array(text.utf8)) == expected, "\(text)")
        }
    }

    /// A request body nested as deep as 64 KiB allows is walked in linear time and memory (a
    /// path per level would cost gigabytes), and left to Foundation past its own depth limit.
    @Test func deepNestingCostsNoMoreThanTheTextAndIsLeftToFoundation() {
        let deep = Array(repeating: UInt8(ascii: "["), count: 65_536)
        #expect(JSONStrictness.firstViolation(in: deep) == nil)
        let objects = Array(String(repeating: #"{"a":"#, count: 13_000).utf8)
        #expect(JSONStrictness.firstViolation(in: objects) == nil)
        let belowTheLimit = String(repeating: "[", count: 500) + "1,]" + String(repeating: "]", count: 499)
        #expect(
            JSONStrictness.firstViolation(in: Array(belowTheLimit.utf8))?.path
                == String(repeating: "[0]", count: 499))
        struct Body: Decodable { var a: Int }
        #expect(throws: StrictJSON.Failure.self) { try StrictJSON.decode(Body.self, from: Data(deep)) }
    }

    @Test func aRequestBodyIsReadAsStrictlyAsTheFile() throws {
        struct Body: Decodable { var a: Int }
        #expect(throws: StrictJSON.Failure.self) { try StrictJSON.decode(Body.self, from: Data(#"{"a": 1,}"#.utf8)) }
        do {
            _ = try StrictJSON.decode(Body.self, from: Data("{\n  \"a\": 1,\n  \"a\": 2\n}".utf8))
            Issue.record("a duplicate name was read")
        } catch let failure as StrictJSON.Failure {
            #expect(failure.description == "a: appears twice in one object (line 3, column 3)")
        }
    }

    @Test func everyUnknownOptionOfABuiltInIsNamedWithTheKeysItTakes() throws {
        let errors = refusal(
            """
            {
              "adapters": [
                {"name": "device-context", "options": {"brand": "b", "brnd": "x"}},
                {"name": "first-party-id", "options": {"seed": 1}},
                {"name": "sidecar", "exec": "/bin/true", "options": {"anything": 1}}
              ],
              "ad_networks": {"openrtb": {"setup": {"endpointt": "x", "device": {"w": 1, "colour": 2}}}},
              "ad_units": {
                "/x": {"format": "native", "waterfall": [
                  {"network": "openrtb", "parameter": "p", "options": {"endpoint": "http://127.0.0.1/", "bidfloorx": 1}},
                  {"network": "house", "parameter": "*", "options": {"directory": "/tmp"}}
                ]}
              }
            }
            """)
        #expect(
            errors == [
                "adapters[0].options.brnd: unknown key; known: brand, model, os_release_path",
                "adapters[1].options.seed: unknown key; known: scope",
                // A network that line items name is set up with its setup's defaults: house's
                // directory has none.
                "ad_networks.house.setup.directory: is required",
                "ad_networks.openrtb.setup.endpointt: unknown key; known: app, coppa, device, endpoint, gdpr",
                "ad_networks.openrtb.setup.device.colour: unknown key; known: devicetype, h, hwv, make, model, os_release_path, ua, w",
                "ad_units./x.waterfall[0].options.bidfloorx: unknown key; known: bidfloor, currency, endpoint, headers, recipient, reward_amount, reward_type, signals, timeout_ms",
                "ad_units./x.waterfall[1].options.directory: unknown key; this takes none",
            ])
    }

    @Test func theOptionsTheBuiltInsDeclareAreAllTheyRead() throws {
        // Each documented example of the built-ins' options passes: a declared list that missed
        // a key the code reads would refuse a working configuration.
        let errors = refusal(
            """
            {
              "recipients": {"demo": {"key_configs": ["\(DemoRecipient.keyConfigPath)"]}},
              "adapters": [
                {"name": "device-context", "options": {"brand": "b", "model": "m", "os_release_path": "/etc/os-release"}},
                {"name": "file", "options": {"path": "/tmp/s", "max_age_ms": 1000, "sdk_version": "1.0.0"}}
              ],
              "ad_networks": {
                "test": {"setup": {"tracks_itself": true, "setup_delay_ms": 1}},
                "openrtb": {"setup": {"endpoint": "http://127.0.0.1/", "coppa": false, "gdpr": 1,
                  "app": {"id": "a", "name": "n", "bundle": "b", "storeurl": "s", "ver": "1", "publisher_id": "p"},
                  "device": {"ua": "u", "make": "m", "model": "m", "hwv": "h", "devicetype": 3, "os_release_path": "/etc/os-release", "w": 1, "h": 1}}}
              },
              "ad_units": {
                "/n": {"format": "native", "currency": "EUR", "waterfall": [
                  {"network": "test", "parameter": "p", "options": {"behavior": "no_fill", "delay_ms": 1, "impression_tracker": "http://127.0.0.1/i", "click_tracker": "http://127.0.0.1/c", "deep_link": "app://x"}},
                  {"network": "openrtb", "parameter": "p", "options": {"timeout_ms": 100, "bidfloor": 1, "currency": "EUR", "signals": ["file"], "recipient": "demo", "headers": {"x": "y"}}}
                ]},
                "/r": {"format": "rewarded", "waterfall": [
                  {"network": "vast", "parameter": "http://127.0.0.1/vast", "options": {"timeout_ms": 100, "reward_type": "coins", "reward_amount": 2}},
                  {"network": "openrtb", "parameter": "p", "options": {"reward_type": "coins", "reward_amount": 2}}
                ]}
              }
            }
            """)
        #expect(errors == [])
    }

    @Test func everyEntryIsCheckedAndEveryErrorReported() throws {
        let errors = refusal(
            """
            {
              "recipients": {"a": {"key_configs": ["missing-a"]}, "b": {"key_configs": ["missing-b"]}},
              "adapters": [
                {"name": "nope", "recipients": ["ghost"]},
                {"name": "device-context", "recipients": ["a", "ghost"]},
                {"name": "device-context"}
              ],
              "ad_networks": {"acme": {}},
              "ad_units": {"/x": {"format": "native", "waterfall": [{"network": "acme", "parameter": "p"}]}}
            }
            """)
        try #require(errors.count == 8, "\(errors)")
        #expect(errors[0].hasPrefix("recipients.a.key_configs[0]: "))
        #expect(errors[1].hasPrefix("recipients.b.key_configs[0]: "))
        // An entry's unknown type does not hide its other errors.
        #expect(errors[2].hasPrefix("adapters[0].name: no adapter type named \"nope\""))
        #expect(errors[3] == "adapters[0].recipients[0]: no recipient named \"ghost\" in \"recipients\"")
        #expect(errors[4] == "adapters[1].recipients[1]: no recipient named \"ghost\" in \"recipients\"")
        #expect(errors[5] == "adapters[2].name: \"device-context\" is used twice")
        #expect(errors[6].hasPrefix("ad_networks.acme: no ad network named \"acme\""))
        #expect(errors[7].hasPrefix("ad_units./x.waterfall[0].network: no ad network named \"acme\""))
    }

    @Test func ssvCallbacksNeedARewardedUnitAURLAndAKeyThatIsOne() throws {
        let item = #"[{"network": "test", "parameter": "p"}]"#
        #expect(
            refusal(
                #"{"ad_units": {"/n": {"format": "native", "waterfall": \#(item), "ssv": {"callback_url": "https://p.example/ssv"}}, "/r": {"format": "rewarded", "waterfall": \#(item), "ssv": {"callback_url": "ftp://p.example/x"}}, "/s": {"format": "rewarded", "waterfall": \#(item), "ssv": {"callback_url": "https://p.example/ok"}}}}"#
            ) == [
                "ad_units./n.ssv.callback_url: only a rewarded unit earns rewards",
                "ad_units./r.ssv.callback_url: must be an absolute http(s) URL without a fragment, not \"ftp://p.example/x\"",
                "ad_units./s.ssv.callback_url: needs ssv.signing_key and ssv.key_id to sign its callbacks",
            ])
        #expect(
            refusal(#"{"ssv": {"key_id": 1}}"#) == [#"ssv.signing_key: "signing_key" and "key_id" are set together"#])
        // A key that is not a P-256 private key is named with its key.
        let errors = refusal(#"{"ssv": {"signing_key": "\#(DemoRecipient.keyConfigPath)", "key_id": 1}}"#)
        #expect(errors.count == 1 && errors[0].hasPrefix("ssv.signing_key: "), "\(errors)")
    }

    @Test func aNetworkWhoseSetupFailsIsReportedOnceNotForEachLineItem() throws {
        let errors = refusal(
            #"{"ad_networks": {"openrtb": {"setup": {"endpont": "http://127.0.0.1/"}}}, "ad_units": {"/x": {"format": "native", "waterfall": [{"network": "openrtb", "parameter": "p"}]}}}"#
        )
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?.hasPrefix("ad_networks.openrtb.setup.endpont: unknown key") == true)
    }

    @Test func everyShapeErrorIsReportedSectionBySection() throws {
        let errors = refusal(
            #"{"colour": 1, "deadlines": {"request_timeout_ms": 1.5}, "limits": {"bogus": 1, "max_connections": "x"}}"#)
        #expect(
            errors == [
                "colour: unknown key", "deadlines.request_timeout_ms: must be a whole number, not 1.5",
                "limits.bogus: unknown key", "limits.max_connections: must be a whole number",
            ])
    }

    @Test func everyErrorOfAFileIsListedInOneRunInTheOrderOfTheText() throws {
        // Read section by section, these would come out in the order of the code; a person
        // fixes a file top to bottom.
        let errors = refusal(
            """
            {
              "limits": {"max_connections": 0, "idle_timeout_ms": "soon"},
              "deadlines": {"request_timeout_ms": 0},
              "colour": 1,
              "ad_units": {"/x": {"format": "banner", "waterfall": [{"network": "test", "timeout_ms": 0}]}},
              "trackers": {"max_owed": -1, "max_age": 5},
              "privacy": {"min_tcf_policy_version": 1},
              "events": {"retention_count": 0},
              "socket": {"mode": "999"},
              "performance": {"ephemeral_key_pool": 5000}
            }
            """)
        #expect(
            errors == [
                "limits.max_connections: must be between 1 and 65536, not 0",
                "limits.idle_timeout_ms: must be a whole number",
                "deadlines.request_timeout_ms: must be between 1 and 60000, not 0",
                "colour: unknown key",
                "ad_units./x.format: must be \"native\" or \"rewarded\", not \"banner\"",
                "ad_units./x.waterfall[0].timeout_ms: must be between 1 and 60000, not 0",
                "trackers.max_owed: must be between 1 and 10000000, not -1",
                "trackers.max_age: unknown key",
                "privacy.min_tcf_policy_version: must be a TCF policy version from 2 to 63, not 1",
                "events.retention_count: must be between 1 and 1000000, not 0",
                "socket.mode: must be an octal mode such as \"0660\", not \"999\"",
                "performance.ephemeral_key_pool: must be between 0 and 4096, not 5000",
            ], "\(errors)")
    }

    @Test func aKeyMissingFromAnArrayElementIsReportedAtThatElementsPlace() throws {
        let errors = refusal(
            """
            {
              "adapters": [
                {"name": "device-context", "recipients": ["demo"], "colour": 1},
                {"recipients": ["demo"]}
              ],
              "recipients": {"demo": {"demo_key": true}}
            }
            """)
        #expect(errors == ["adapters[0].colour: unknown key", "adapters[1].name: is required"], "\(errors)")
    }

    @Test func theCheckSummaryListsEachUnitsBiddersBesideItsWaterfall() throws {
        let scratch = try TemporaryDirectory()
        let bidder = #"{"network": "openrtb", "parameter": "p", "options": {"endpoint": "http://127.0.0.1:9/bid"}}"#
        let json = """
            {"socket": {"path": "\(scratch.path("run/s.sock"))"}, "state_directory": "\(scratch.path("state"))",
             "ad_units": {
               "/auction": {"format": "native", "floor_cpm": 1.5, "currency": "EUR", "bidders": [\(bidder)],
                            "waterfall": [{"network": "test", "parameter": "x"}]},
               "/bids-only": {"format": "native", "bidders": [\(bidder), \(bidder)]},
               "/plain": {"format": "rewarded", "waterfall": [{"network": "test", "parameter": "x"}]}}}
            """
        let summary = try ResolvedConfiguration.load(
            json: Data(json.utf8), file: "daemon.json", directory: URL(fileURLWithPath: "/tmp"),
            registry: BuiltinAdapters.registry
        ).summary
        let units = summary.split(separator: "\n").filter { $0.hasPrefix("ad unit") }.sorted()
        #expect(
            units == [
                "ad unit       /auction (native): bidders openrtb (auction 1.0 seconds, floor 1.5 EUR); waterfall test",
                "ad unit       /bids-only (native): bidders openrtb, openrtb (auction 1.0 seconds)",
                "ad unit       /plain (rewarded): waterfall test",
            ], "\(summary)")
    }

    @Test func consentDeclarationsAreCheckedAgainstTCFv22() throws {
        let adapter = { (consent: String) in
            #"{"adapters": [{"name": "first-party-id", "consent": \#(consent)}]}"#
        }
        let cases: [(String, String?)] = [
            (
                #"{"gvl_vendor_id": 755, "purposes": [1], "legitimate_interest_purposes": [2, 7], "identifier": true}"#,
                nil
            ),
            (
                #"{"gvl_vendor_id": 0}"#,
                "adapters[0].consent.gvl_vendor_id: must be a Global Vendor List id from 1 to 65535, not 0"
            ),
            (#"{"purposes": [12]}"#, "adapters[0].consent.purposes: 12 is not a TCF v2.2 id (1-11)"),
            (
                #"{"legitimate_interest_purposes": [3]}"#,
                "adapters[0].consent.legitimate_interest_purposes: purpose 3 cannot rest on a legitimate interest (TCF v2.2)"
            ),
            (#"{"special_features": [3]}"#, "adapters[0].consent.special_features: 3 is not a TCF v2.2 id (1-2)"),
            (#"{"vendor": 1}"#, "adapters[0].consent.vendor: unknown key"),
        ]
        for (consent, error) in cases {
            #expect(refusal(adapter(consent)) == (error.map { [$0] } ?? []), "\(consent)")
        }
        #expect(
            refusal(#"{"privacy": {"min_tcf_policy_version": 1}}"#)
                == ["privacy.min_tcf_policy_version: must be a TCF policy version from 2 to 63, not 1"])
        // A built-in identifier stays one whatever its declaration says.
        let overridden = try ResolvedConfiguration.load(
            json: Data(
                #"{"socket": {"path": "/tmp/x.sock"}, "state_directory": "/tmp/x-state", "adapters": [{"name": "first-party-id", "consent": {"gvl_vendor_id": 755, "purposes": [2]}}]}"#
                    .utf8),
            file: "daemon.json", directory: URL(fileURLWithPath: "/tmp"), registry: BuiltinAdapters.registry)
        #expect(
            overridden.collector.adapters.first?.consent
                == ConsentRequirement(vendorID: 755, purposes: [2], identifier: true))
        let item =
            #"{"ad_units": {"u": {"format": "native", "waterfall": [{"network": "test", "consent": {"purposes": [0]}}]}}}"#
        #expect(refusal(item) == ["ad_units.u.waterfall[0].consent.purposes: 0 is not a TCF v2.2 id (1-11)"])
    }

    @Test func directoriesTheDaemonCannotMakeAreNamedByTheirKeys() throws {
        let directory = try TemporaryDirectory()
        try "not a directory".write(toFile: directory.path("file"), atomically: true, encoding: .utf8)
        let errors = refusal(
            #"{"socket": {"path": "\#(directory.path("file"))/run/s.sock"}, "state_directory": "\#(directory.path("file"))/state"}"#
        )
        #expect(
            errors == [
                "socket.path: \(directory.path("file")) exists and is not a directory",
                "state_directory: \(directory.path("file")) exists and is not a directory",
            ])
        // Made when it can be, with the mode the daemon wants.
        let configuration = try ResolvedConfiguration.load(
            json: Data(
                #"{"socket": {"path": "\#(directory.path("a/b/s.sock"))"}, "state_directory": "\#(directory.path("s/t"))"}"#
                    .utf8),
            file: "daemon.json", directory: directory.url, registry: BuiltinAdapters.registry)
        try configuration.makeDirectories()
        var status = stat()
        #expect(stat(directory.path("s/t"), &status) == 0 && status.st_mode & 0o777 == 0o700)
        #expect(stat(directory.path("a/b"), &status) == 0 && status.st_mode & 0o777 == 0o750)
    }

    /// Where `refusal`'s configurations put the socket and the state, unless they say: never
    /// the machine's default directories.
    @Test func recipientKeyURLsAreCheckedAndEachErrorNamesItsKey() throws {
        func errors(_ recipient: String) -> [String] { refusal(#"{"recipients": {"r": \#(recipient)}}"#) }
        let cases: [(String, String)] = [
            (
                #"{"key_url": "http://keys.example/k"}"#,
                "recipients.r.key_url: must be https (plain http is allowed to a loopback address only)"
            ),
            (#"{"key_url": "ftp://keys.example/k"}"#, "recipients.r.key_url: must be an https URL, not ftp"),
            (
                #"{"key_url": "http://localhost:8080/k"}"#,
                "recipients.r.key_url: must be https (plain http is allowed to a loopback address only)"
            ),
            (#"{"key_url": "https://u:p@keys.example/k"}"#, "recipients.r.key_url: must not carry credentials"),
            (
                #"{"key_url": "keys.ohttp"}"#,
                #"recipients.r.key_url: must be an absolute http(s) URL, not "keys.ohttp""#
            ),
            (
                #"{"key_url": "http://127.0.0.1:9/k", "ca_file": "/etc/hostname"}"#,
                "recipients.r.ca_file: applies only to an https key_url"
            ),
            (
                #"{"key_url": "https://keys.example/k", "ca_file": "/etc/hostname"}"#,
                "recipients.r.ca_file: /etc/hostname"
            ),
            (
                #"{"demo_key": true, "key_url": "https://keys.example/k"}"#,
                #"recipients.r.key_url: a recipient has "demo_key": true or its own keys, not both"#
            ),
            (
                #"{"key_configs": ["k"], "max_stale_ms": 5}"#,
                #"recipients.r.max_stale_ms: applies only to a recipient with a "key_url""#
            ),
            (
                #"{"key_url": "https://keys.example/k", "max_stale_ms": -1}"#,
                "recipients.r.max_stale_ms: must be between 0 and 31536000000, not -1"
            ),
            (
                #"{"key_url": "https://keys.example/k", "default_max_age_ms": 0}"#,
                "recipients.r.default_max_age_ms: must be between 1 and 604800000, not 0"
            ),
            ("{}", #"recipients.r.key_configs: a recipient needs "key_configs", a "key_url" or both"#),
            (#"{"key_configs": []}"#, "recipients.r.key_configs: must list at least one file"),
        ]
        for (recipient, expected) in cases {
            let found = errors(recipient)
            #expect(found.count == 1 && found[0].hasPrefix(expected), "\(recipient): \(found)")
        }
        // A name becomes a file name in the state directory.
        for name in ["../x", "a/b", ".hidden", ""] {
            #expect(
                refusal(#"{"recipients": {"\#(name)": {"demo_key": true}}}"#)
                    == [
                        "recipients.\(name): a recipient's name is 1-64 ASCII letters, digits, '.', '_' or '-', not starting with '.'"
                    ], "\(name)")
        }
        for accepted in [
            #"{"key_url": "https://keys.example/k", "default_max_age_ms": 3600000, "max_stale_ms": 0}"#,
            #"{"key_url": "http://[::1]:8080/k"}"#, #"{"key_url": "https://keys.example/k?v=2"}"#,
            #"{"key_url": "http://127.1.2.3/k", "key_configs": ["\#(DemoRecipient.keyConfigPath)"]}"#,
        ] {
            #expect(errors(accepted) == [], "\(accepted)")
        }
    }

    private let scratch = try? TemporaryDirectory()

    /// The errors reading `json` finds, without the file name; empty when it is accepted.
    private func refusal(_ json: String) -> [String] { configurationRefusal(json, scratch: scratch) }
}
