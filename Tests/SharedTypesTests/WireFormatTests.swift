import Foundation
import SharedTypes
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing
import WireFormatMacros

/// The one wire shape: names spelled when the code compiles, explicit nulls, and answers that
/// read back as they were written.
struct WireFormatTests {
    @Test func wireKeysSpellEachStoredPropertyInSnakeCase() {
        expand(
            """
            @WireKeys
            struct Names {
                var adID: String
                var requestID: String
                var formatIDs: [String]
                var videoURL: String
                var allowedUIDs: [Int]
                var hasVideoContent: Bool
                var ortb2Imp: Int
                var v: Int
                var limit_ad_tracking: Bool
                @Nullable var keyID: Int?
                @WireName("uptime_s") var uptimeSeconds: Double
                static var shared = 0
                var computed: Int { 1 }
                var observed = 0 { didSet {} }
            }
            """,
            into: """
                struct Names {
                    var adID: String
                    var requestID: String
                    var formatIDs: [String]
                    var videoURL: String
                    var allowedUIDs: [Int]
                    var hasVideoContent: Bool
                    var ortb2Imp: Int
                    var v: Int
                    var limit_ad_tracking: Bool
                    @Nullable var keyID: Int?
                    var uptimeSeconds: Double
                    static var shared = 0
                    var computed: Int { 1 }
                    var observed = 0 { didSet {} }

                    enum CodingKeys: String, CodingKey, CaseIterable {
                        case adID = "ad_id"
                        case requestID = "request_id"
                        case formatIDs = "format_ids"
                        case videoURL = "video_url"
                        case allowedUIDs = "allowed_uids"
                        case hasVideoContent = "has_video_content"
                        case ortb2Imp = "ortb2_imp"
                        case v = "v"
                        case limit_ad_tracking = "limit_ad_tracking"
                        case keyID = "key_id"
                        case uptimeSeconds = "uptime_s"
                        case observed = "observed"
                    }
                }
                """)
    }

    @Test func aTypeWithNoStoredPropertyIsRefused() {
        var failures: [String] = []
        assertMacroExpansion(
            """
            @WireKeys
            struct Empty {
                var computed: Int { 1 }
            }
            """,
            expandedSource: """
                struct Empty {
                    var computed: Int { 1 }
                }
                """,
            diagnostics: [DiagnosticSpec(message: "@WireKeys needs stored properties", line: 1, column: 1)],
            macroSpecs: Self.macros, failureHandler: { failures.append($0.message) })
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func whatWireKeysCannotSpellIsRefused() {
        var failures: [String] = []
        assertMacroExpansion(
            """
            @WireKeys
            struct Odd {
                @WireName(#"c"#) var c: Int
                #if DEBUG
                var d: Int
                #endif
                lazy var e = 1
                var f: Int
            }
            """,
            expandedSource: """
                struct Odd {
                    var c: Int
                    #if DEBUG
                    var d: Int
                    #endif
                    lazy var e = 1
                    var f: Int

                    enum CodingKeys: String, CodingKey, CaseIterable {
                        case f = "f"
                    }
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "@WireName takes a plain string literal", line: 3, column: 5),
                DiagnosticSpec(
                    message: "@WireKeys cannot see properties inside #if; move them out", line: 4, column: 5),
            ],
            macroSpecs: Self.macros, failureHandler: { failures.append($0.message) })
        #expect(failures.isEmpty, "\(failures)")
    }

    static let macros: [String: MacroSpec] = [
        "WireKeys": MacroSpec(type: WireKeysMacro.self), "WireName": MacroSpec(type: MarkerMacro.self),
    ]

    func expand(_ source: String, into expanded: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var failures: [String] = []
        assertMacroExpansion(
            source, expandedSource: expanded, macroSpecs: Self.macros, failureHandler: { failures.append($0.message) })
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))", sourceLocation: sourceLocation)
    }

    /// Dictionary keys are data, not names: a custom format's asset keys, extra assets and
    /// counts by state are written and read as they are.
    @Test func dictionaryKeysAreLeftAsTheyAre() throws {
        @WireKeys
        struct Holder: Codable, Equatable {
            var extraAssets: [String: String]
        }
        let holder = Holder(extraAssets: ["MainImage": "a", "rating_count": "5", "timed_out": "1"])
        let text = String(decoding: try WireFormat.encoder().encode(holder), as: UTF8.self)
        #expect(text == #"{"extra_assets":{"MainImage":"a","rating_count":"5","timed_out":"1"}}"#)
        #expect(try roundTrip(holder) == holder)
    }

    /// What a bidder finds inside an envelope, key for key.
    @Test func aSignalsPayloadIsWhatBiddersRead() throws {
        let payload = SignalPayload(
            v: 1, adapter: "device-context", adapterVersion: SemanticVersion(1, 0, 1),
            sdkVersion: SemanticVersion(6, 1, 0), requestID: "ad-42", issuedAtMilliseconds: 1_700_000_000_000,
            signal: "c2ln/+==")
        let text = String(decoding: try WireFormat.encoder().encode(payload), as: UTF8.self)
        #expect(
            text
                == #"{"adapter":"device-context","adapter_version":"1.0.1","issued_at_ms":1700000000000,"request_id":"ad-42","sdk_version":"6.1.0","signal":"c2ln/+==","v":1}"#
        )
    }

    @Test func thePrivacyStateReadsBackAsItWasWritten() throws {
        let privacy = PrivacyState(
            limitAdTracking: true, tcfConsent: "CP", gpp: "DB", gppSid: [2, 6], usPrivacy: "1YNN", gdprApplies: false)
        let text = String(decoding: try WireFormat.encoder().encode(privacy), as: UTF8.self)
        #expect(
            text
                == #"{"gdpr_applies":false,"gpp":"DB","gpp_sid":[2,6],"limit_ad_tracking":true,"tcf_consent":"CP","us_privacy":"1YNN"}"#
        )
        #expect(try roundTrip(privacy) == privacy)
    }

    @Test func absentValuesAreExplicitNullsAndReadBackAbsent() throws {
        let status = AdapterStatus(
            name: "a", kind: "builtin", state: .initializing, description: "initializing", initLatencyMilliseconds: nil,
            adapterVersion: nil, sdkVersion: nil,
            circuit: CircuitStatus(state: .closed, consecutiveFailures: 0, retryInMilliseconds: nil, opened: 0),
            program: nil)
        let text = String(decoding: try WireFormat.encoder().encode(status), as: UTF8.self)
        #expect(
            text
                == #"{"adapter_version":null,"circuit":{"consecutive_failures":0,"opened":0,"retry_in_ms":null,"state":"closed"},"description":"initializing","init_latency_ms":null,"kind":"builtin","name":"a","program":null,"sdk_version":null,"state":"initializing"}"#
        )
        #expect(try WireFormat.decoder().decode(AdapterStatus.self, from: Data(text.utf8)) == status)
        let missing =
            #"{"name":"a","kind":"builtin","state":"ready","description":"ready","circuit":{"state":"closed","consecutive_failures":0,"opened":0}}"#
        let read = try WireFormat.decoder().decode(AdapterStatus.self, from: Data(missing.utf8))
        #expect(read.initLatencyMilliseconds == nil && read.program == nil && read.circuit.retryInMilliseconds == nil)
    }

    @Test func answersReadBackAsTheyWereWritten() throws {
        let program = ProgramStatus(
            state: .restarting, pid: nil, restarts: 2, lastExit: "exited with status 3", restartInMilliseconds: 1800,
            droppedLines: 1, unmatchedReplies: 2, suppressedStderrLines: 3)
        let status = AdapterStatus(
            name: "p", kind: "exec", state: .ready, description: "ready", initLatencyMilliseconds: 168.5,
            adapterVersion: SemanticVersion(1, 2, 3), sdkVersion: SemanticVersion(3, 11, 7),
            circuit: CircuitStatus(state: .open, consecutiveFailures: 3, retryInMilliseconds: 8200, opened: 1),
            program: program)
        #expect(try roundTrip(status) == status)
        let result = CollectionResult(
            requestID: "r",
            signals: [
                SealedSignal(
                    adapter: "a", adapterVersion: SemanticVersion(1, 0, 0), sdkVersion: SemanticVersion(2, 0, 0),
                    recipient: "demo", keyID: 1, envelope: "AQ", cached: true)
            ],
            errors: [AdapterFailure(adapter: "b", code: .timeout, message: "late")])
        #expect(try roundTrip(result) == result)
        let health = HealthReport(
            status: "ok", adapters: ["ready": 2, "timed_out": 1], uptimeSeconds: 42, version: "1", warnings: ["w"])
        #expect(try roundTrip(health) == health)
        let text = String(decoding: try WireFormat.encoder().encode(health), as: UTF8.self)
        #expect(
            text
                == #"{"adapters":{"ready":2,"timed_out":1},"status":"ok","uptime_s":42,"version":"1","warnings":["w"]}"#
        )
    }

    func roundTrip<T: Codable>(_ value: T) throws -> T {
        try WireFormat.decoder().decode(T.self, from: WireFormat.encoder().encode(value))
    }
}
