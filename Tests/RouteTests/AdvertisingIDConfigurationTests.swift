import Adapters
import Foundation
import TestSupport
import Testing

@testable import Daemon

/// `advertising_id`: a file or a program, exactly one, each error naming its key; and the
/// section as `--print-config` and `--check-config` show it; and the bid request's device type.
@Suite struct AdvertisingIDConfigurationTests {
    private let scratch = try? TemporaryDirectory()

    private func refusal(_ json: String) -> [String] { configurationRefusal(json, scratch: scratch) }

    @Test func aFileOrAProgramIsAccepted() throws {
        #expect(refusal(#"{"advertising_id": {"file": "/run/platform/advertising-id.json"}}"#) == [])
        #expect(
            refusal(#"{"advertising_id": {"program": ["/bin/echo", "x"], "type": "sessionid", "timeout_ms": 300}}"#)
                == [])
    }

    @Test func eachMistakeIsAnErrorNamingItsKey() {
        #expect(
            refusal(#"{"advertising_id": {"file": "/run/ifa.json", "program": ["/bin/echo"]}}"#)
                == [#"advertising_id.program: give "file" or "program", not both: the id has one source"#])
        #expect(
            refusal(#"{"advertising_id": {}}"#) == [#"advertising_id: needs "file" or "program": where the id is read"#]
        )
        #expect(
            refusal(#"{"advertising_id": {"file": "/run/ifa.json", "type": "idfa"}}"#)
                == ["advertising_id.type: must be one of dpid, ppid, sspid, sessionid, not \"idfa\""])
        #expect(
            refusal(#"{"advertising_id": {"file": "platform/ifa.json"}}"#)
                == [#"advertising_id.file: must be an absolute path (the platform's file), not "platform/ifa.json""#])
        #expect(
            refusal(#"{"advertising_id": {"program": ["ifa", "--json"]}}"#)
                == [#"advertising_id.program: must start with the program's absolute path, not "ifa""#])
        #expect(
            refusal(#"{"advertising_id": {"program": ["/nonexistent/ifa"]}}"#)
                == ["advertising_id.program: /nonexistent/ifa does not exist"])
        #expect(
            refusal(#"{"advertising_id": {"file": "/run/ifa.json", "timeout_ms": 100}}"#)
                == [#"advertising_id.timeout_ms: only applies with "program""#])
        #expect(
            refusal(#"{"advertising_id": {"file": "/run/ifa.json", "refresh_ms": -1, "fiel": 1}}"#)
                == [
                    "advertising_id.refresh_ms: must be between 0 and 86400000, not -1",
                    "advertising_id.fiel: unknown key",
                ])
    }

    @Test func anOpenRTBDeviceIsAConnectedTVOrASetTopBox() {
        #expect(
            refusal(#"{"ad_networks": {"openrtb": {"setup": {"device": {"devicetype": 4, "w": 0}}}}}"#)
                == [
                    "ad_networks.openrtb.setup.device.w: must be between 1 and 16384, not 0"
                ])
        #expect(
            refusal(#"{"ad_networks": {"openrtb": {"setup": {"device": {"devicetype": 4}}}}}"#)
                == ["ad_networks.openrtb.setup.device.devicetype: must be 3 (connected TV) or 7 (set-top box), not 4"])
        #expect(refusal(#"{"ad_networks": {"openrtb": {"setup": {"device": {"devicetype": 3}}}}}"#) == [])
    }

    @Test func theSectionIsShownAsItRunsAndReadBack() throws {
        let scratch = try TemporaryDirectory()
        let json = Data(
            #"{"socket": {"path": "\#(scratch.path("s.sock"))"}, "state_directory": "\#(scratch.path("state"))", "advertising_id": {"program": ["/bin/echo", "x"]}}"#
                .utf8)
        let configuration = try ResolvedConfiguration.load(
            json: json, file: "daemon.json", directory: scratch.url, registry: BuiltinAdapters.registry)
        let printed = try configuration.printedConfiguration()
        let section = try #require(
            (try JSONSerialization.jsonObject(with: Data(printed.utf8)) as? [String: Any])?["advertising_id"]
                as? [String: Any])
        #expect(section["program"] as? [String] == ["/bin/echo", "x"] && section["type"] as? String == "dpid")
        #expect(section["refresh_ms"] as? Int == 60_000 && section["timeout_ms"] as? Int == 1000)
        let again = try ResolvedConfiguration.load(
            json: Data(printed.utf8), file: "printed.json", directory: URL(fileURLWithPath: "/"),
            registry: BuiltinAdapters.registry)
        #expect(again.advertisingID == configuration.advertisingID && again.advertisingID?.timeoutMilliseconds == 1000)
        #expect(
            configuration.summary.contains(
                "advertising   id from program /bin/echo (timeout 1000 ms), dpid unless it says, read again after 60000 ms"
            ))
        let none = try ResolvedConfiguration.load(
            json: Data(
                #"{"socket": {"path": "\#(scratch.path("s.sock"))"}, "state_directory": "\#(scratch.path("state"))"}"#
                    .utf8),
            file: "daemon.json", directory: scratch.url, registry: BuiltinAdapters.registry)
        let printedNone = try none.printedConfiguration()
        #expect(none.advertisingID == nil && !printedNone.contains("advertising_id"))
    }
}
