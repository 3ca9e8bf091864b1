import Consent
import Foundation
import Logging
import SecureSignals
import SharedTypes
import Testing

@testable import Adapters

/// The built-in adapters on real files.
struct BuiltinAdapterTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("adapters-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func context() -> AdapterContext {
        AdapterContext(
            name: "test", stateDirectory: directory.appendingPathComponent("state"), logger: Logger(label: "test"))
    }

    /// An adapter made as the registry makes it, with `options` decoded as the configuration
    /// decodes them (none: its defaults).
    func make<Adapter: SignalAdapter>(_ type: Adapter.Type, _ options: [String: JSONValue]? = nil) async throws
        -> Adapter
    {
        try await Adapter.make(options: try options.map { try Adapter.decodeOptions($0) }, context: context())
    }

    let consenting = SignalRequest(requestID: "r", privacy: PrivacyState(limitAdTracking: false))

    @Test func deviceContextReadsOSReleaseAndTheOptions() async throws {
        let release = directory.appendingPathComponent("os-release")
        try "NAME=\"Signage OS\"\nVERSION_ID=\"4.2\"\n# comment\nID=signage\n".write(
            to: release, atomically: true, encoding: .utf8)
        let adapter = try await make(
            DeviceContextAdapter.self,
            ["os_release_path": .string(release.path), "brand": .string("Acme"), "model": .string("TV-9")])
        guard case .plaintext(let bytes) = try await adapter.collectSignals(for: consenting) else {
            Issue.record("expected a plaintext")
            return
        }
        let keys = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]).keys
        #expect(Set(keys) == ["os", "os_version", "kernel", "architecture", "locale", "time_zone", "brand", "model"])
        let device = try WireFormat.decoder().decode(DeviceContextAdapter.DeviceContext.self, from: Data(bytes))
        #expect(device.os == "Signage OS" && device.osVersion == "4.2")
        #expect(device.brand == "Acme" && device.model == "TV-9")
        #expect(!device.kernel.isEmpty && !device.architecture.isEmpty && !device.timeZone.isEmpty)
        #expect(adapter.sdkVersion == SemanticVersion(parsing: device.kernel))
        await #expect(throws: SignalError.self) {
            _ = try await make(DeviceContextAdapter.self, ["os_release_path": .string("/nonexistent")])
        }
    }

    @Test func theTimeZoneIsReadAsTheCLibraryReadsItWithoutICU() throws {
        let zoneinfo = directory.appendingPathComponent("zoneinfo/America/Argentina")
        try FileManager.default.createDirectory(at: zoneinfo, withIntermediateDirectories: true)
        try Data().write(to: zoneinfo.appendingPathComponent("Buenos_Aires"))
        let localtime = directory.appendingPathComponent("localtime").path
        try FileManager.default.createSymbolicLink(
            atPath: localtime, withDestinationPath: zoneinfo.appendingPathComponent("Buenos_Aires").path)
        let timezone = directory.appendingPathComponent("timezone")
        try "Europe/Paris\n".write(to: timezone, atomically: true, encoding: .utf8)
        let none = directory.appendingPathComponent("none").path
        func zone(_ environment: [String: String], _ localtime: String, _ timezoneFile: String) -> String {
            LocalTimeZone.identifier(environment: environment, localtime: localtime, timezoneFile: timezoneFile)
        }
        #expect(zone(["TZ": "Asia/Tokyo"], localtime, timezone.path) == "Asia/Tokyo")
        #expect(zone(["TZ": ":Pacific/Auckland"], localtime, timezone.path) == "Pacific/Auckland")
        #expect(zone(["TZ": "/usr/share/zoneinfo/Etc/GMT+3"], localtime, timezone.path) == "Etc/GMT+3")
        #expect(zone(["TZ": "../../etc/passwd"], localtime, timezone.path) == "America/Argentina/Buenos_Aires")
        #expect(zone([:], localtime, timezone.path) == "America/Argentina/Buenos_Aires")
        #expect(zone([:], none, timezone.path) == "Europe/Paris")
        #expect(zone([:], none, none) == "UTC")
        #expect(zone(["TZ": ""], localtime, timezone.path) == "UTC", "an empty TZ is UTC, as glibc reads it")
        #expect(zone(["TZ": "EST5EDT,M3.2.0,M11.1.0"], localtime, timezone.path) == "EST5EDT,M3.2.0,M11.1.0")
        // A chain of links, as read-only roots have (/etc/localtime -> /var/etc/localtime -> zone).
        let posix = directory.appendingPathComponent("zoneinfo/posix/Asia")
        try FileManager.default.createDirectory(at: posix, withIntermediateDirectories: true)
        try Data().write(to: posix.appendingPathComponent("Seoul"))
        let middle = directory.appendingPathComponent("var-localtime").path
        try FileManager.default.createSymbolicLink(
            atPath: middle, withDestinationPath: posix.appendingPathComponent("Seoul").path)
        let chained = directory.appendingPathComponent("chained-localtime").path
        try FileManager.default.createSymbolicLink(atPath: chained, withDestinationPath: middle)
        #expect(zone([:], chained, none) == "Asia/Seoul")
        // A copied zone file, not a link (as some images install it): its name is not in it,
        // so /etc/timezone says it.
        let copied = directory.appendingPathComponent("copied-localtime")
        try Data("TZif2".utf8).write(to: copied)
        #expect(zone([:], copied.path, timezone.path) == "Europe/Paris")
        #expect(zone([:], copied.path, none) == "UTC")
        // A link to something outside any zoneinfo, or /etc/timezone holding a path: not a zone.
        let elsewhere = directory.appendingPathComponent("elsewhere-localtime").path
        try FileManager.default.createSymbolicLink(atPath: elsewhere, withDestinationPath: copied.path)
        let pathInside = directory.appendingPathComponent("timezone-path")
        try " /etc/passwd \n".write(to: pathInside, atomically: true, encoding: .utf8)
        #expect(zone([:], elsewhere, pathInside.path) == "UTC")
    }

    @Test func theLocaleIsReadFromTheEnvironmentAsTheCLibraryReadsItWithoutICU() {
        #expect(LocalLocale.identifier(environment: ["LC_ALL": "de_DE.UTF-8", "LANG": "en_US.UTF-8"]) == "de_DE.UTF-8")
        #expect(
            LocalLocale.identifier(environment: ["LC_MESSAGES": "fr_FR.UTF-8", "LANG": "en_US.UTF-8"]) == "fr_FR.UTF-8")
        #expect(LocalLocale.identifier(environment: ["LC_ALL": "", "LANG": "pt_BR.UTF-8"]) == "pt_BR.UTF-8")
        #expect(LocalLocale.identifier(environment: ["LC_ALL": "", "LC_MESSAGES": "", "LANG": ""]) == "C")
        #expect(LocalLocale.identifier(environment: ["LC_TIME": "ja_JP.UTF-8"]) == "C", "not the locale of messages")
        #expect(LocalLocale.identifier(environment: [:]) == "C")
    }

    @Test func firstPartyIDPersistsIsPrivateAndRotates() async throws {
        let adapter = try await make(FirstPartyIDAdapter.self)
        let file = directory.appendingPathComponent("state/first-party-id").path
        // Nothing is stored on the device until the id is first asked for.
        #expect(!FileManager.default.fileExists(atPath: file))
        let first = try await adapter.collectSignals(for: consenting)
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let again = try await make(FirstPartyIDAdapter.self).collectSignals(for: consenting)
        #expect(first == again, "the id survives a restart")
        try await adapter.reset()
        #expect(!FileManager.default.fileExists(atPath: file), "a reset erases the id")
        let rotated = try await adapter.collectSignals(for: consenting)
        #expect(rotated != first)
        #expect(try await make(FirstPartyIDAdapter.self).collectSignals(for: consenting) == rotated)
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
    }

    @Test func firstPartyIDIsAnIdentifierNeedingPurposeOneAndTheOthersNeedNothing() {
        // The collector withholds it by this (CollectorTests, the route tests).
        #expect(FirstPartyIDAdapter.consent == ConsentRequirement(purposes: [1], identifier: true))
        #expect(DeviceContextAdapter.consent == .none && FileSignalAdapter.consent == .none)
    }

    /// A file over the adapter's 1 MiB read limit is refused by its size, not read whole (the
    /// size as FoundationEssentials gives it, a `UInt`, read right).
    @Test func aFileOverTheReadLimitIsRefusedUnread() async throws {
        let file = directory.appendingPathComponent("huge.bin")
        try Data(count: (1 << 20) + 1).write(to: file)
        let adapter = try await make(FileSignalAdapter.self, ["path": .string(file.path)])
        await #expect(throws: SignalError(.signalTooLarge, "\(file.path) holds 1048577 bytes")) {
            _ = try await adapter.collectSignals(for: consenting)
        }
        #expect(FileManager.default.sizeOfItem(atPath: file.path) == (1 << 20) + 1)
        #expect(FileManager.default.sizeOfItem(atPath: directory.appendingPathComponent("none").path) == nil)
    }

    @Test func fileSignalsAreReadFreshAndChecked() async throws {
        let file = directory.appendingPathComponent("signal.bin")
        let adapter = try await make(
            FileSignalAdapter.self,
            ["path": .string(file.path), "max_age_ms": .number(60_000), "sdk_version": .string("3.18.5")])
        #expect(adapter.sdkVersion.description == "3.18.5")
        await #expect(throws: SignalError(.sdkUnavailable, "\(file.path) does not exist")) {
            _ = try await adapter.collectSignals(for: consenting)
        }
        try Data("v1".utf8).write(to: file)
        #expect(try await adapter.collectSignals(for: consenting) == .plaintext(Array("v1".utf8)))
        try Data("v2".utf8).write(to: file)
        #expect(try await adapter.collectSignals(for: consenting) == .plaintext(Array("v2".utf8)))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -120)], ofItemAtPath: file.path)
        do {
            _ = try await adapter.collectSignals(for: consenting)
            Issue.record("a stale file must fail")
        } catch let error as SignalError {
            #expect(error.code == .collectionFailed)
        }
        // Without its path: the configuration refuses it, and so does the registry's make.
        #expect(throws: StrictJSON.Failures.self) { try FileSignalAdapter.decodeOptions([:]) }
        await #expect(throws: SignalError.self) { _ = try await make(FileSignalAdapter.self) }
    }
}
