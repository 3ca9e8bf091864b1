import API
import ArgumentParser
import Client
import FoundationEssentials
import SharedTypes

struct PrivacyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "privacy",
        abstract: "Show, set or clear this app's privacy state (consent), or with --device the device's.",
        discussion: """
            Each app has its own state, which decides what is done for it; an app that set none \
            stands under the device's, which the platform's settings app sets (--device, with the \
            device_privacy capability). The CLI acts as the app its uid is (or --app ID).
            """,
        subcommands: [Get.self, Set.self, Clear.self, Decoded.self, Decisions.self], defaultSubcommand: Get.self)

    /// Whose state a command acts on.
    struct Scope: ParsableArguments {
        @Flag(help: "The device's state (the platform's), which stands for apps that set none.")
        var device = false

        func endpoint(app: Endpoint, device: Endpoint) -> Endpoint { self.device ? device : app }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show this app's privacy state (none: the device's stands for it), or the device's.")
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var scope: Scope

        func run() async throws {
            let endpoint = scope.endpoint(app: Endpoints.privacy, device: Endpoints.devicePrivacy)
            if connection.json { return try await printRaw(connection, endpoint) }
            try printState(try await connection.client.request(endpoint).successful(), device: scope.device)
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set this app's privacy state (or the device's), replacing the one it had.",
            discussion: """
                The change is on disk when the command returns. Examples:
                  secure-signals privacy set --limit-ad-tracking false --tcf-consent CPc... --gdpr-applies true
                  secure-signals privacy set --device --limit-ad-tracking false --gpc true
                """)
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var scope: Scope

        @Option(help: "Whether the user limited ad tracking: true or false.") var limitAdTracking: Bool

        @Option(help: "The IAB TCF consent string.") var tcfConsent: String?

        @Option(help: "Google's Additional Consent string, e.g. 2~1.35~dv.9.21.") var addtlConsent: String?

        @Option(help: "The IAB GPP string.") var gpp: String?

        @Option(name: .customLong("gpp-sid"), help: "A GPP section id in force; repeat for several.")
        var gppSid: [Int] = []

        @Option(help: "The IAB US Privacy string, e.g. 1YNN.") var usPrivacy: String?

        @Option(help: "Whether the GDPR applies here: true or false (default: unknown).") var gdprApplies: Bool?

        @Option(help: "With --device: whether the user sent a Global Privacy Control signal.") var gpc: Bool?

        @Option(help: "With --device: whether the device is directed to children (COPPA).") var coppa: Bool?

        func validate() throws {
            if !scope.device, gpc != nil || coppa != nil {
                throw ValidationError("--gpc and --coppa are the device's to say: add --device")
            }
        }

        func run() async throws {
            let state = PrivacyState(
                limitAdTracking: limitAdTracking, tcfConsent: tcfConsent, addtlConsent: addtlConsent, gpp: gpp,
                gppSid: gppSid.isEmpty ? nil : gppSid,
                usPrivacy: usPrivacy, gdprApplies: gdprApplies, gpc: gpc, coppa: coppa)
            let body = try WireFormat.encoder().encode(PrivacyBody(privacy: state))
            let endpoint = scope.endpoint(app: Endpoints.setPrivacy, device: Endpoints.setDevicePrivacy)
            let reply = try await connection.client.request(endpoint, json: body).successful()
            if connection.json { return print(String(decoding: reply.body, as: UTF8.self), terminator: "") }
            try printState(reply, device: scope.device)
        }
    }

    struct Decoded: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Show the consent strings in force for this app, decoded: the TC string, the GPP sections, US Privacy.",
            discussion: """
                TCF fields use snake_case names with times in epoch milliseconds; GPP sections keep \
                the GPP specification's field names. Nothing is shown when no state is set.
                """)
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            if connection.json { return try await printRaw(connection, Endpoints.decodedPrivacy) }
            let reply = try await connection.client.request(Endpoints.decodedPrivacy).successful()
            try printJSON(try WireFormat.decoder().decode(JSONValue.self, from: reply.body))
        }
    }

    struct Decisions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what this app's privacy state in force lets each adapter, line item and bidder do.",
            discussion: """
                Each signal adapter and each ad unit's line items and bidders: allowed, or denied \
                with the reason a request would meet, and each line item's serving mode with why it \
                is not personalised: a consent problem seen before a load fails.
                """)
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            if connection.json { return try await printRaw(connection, Endpoints.privacyDecisions) }
            let decisions = try await connection.client.privacyDecisions()
            let under =
                switch decisions.stateInForce {
                case "app": "its own state"
                case "device": "the device's state"
                default: "no privacy state"
                }
            print("app \(decisions.app), under \(under)")
            for adapter in decisions.adapters {
                print("adapter \(adapter.adapter): \(verdict(adapter.allowed, adapter.reason))")
            }
            for unit in decisions.adUnits {
                print(
                    "ad unit \(unit.adUnit): advertising id \(verdict(unit.advertisingID.allowed, unit.advertisingID.reason))"
                )
                for (kind, items) in [("line item", unit.lineItems), ("bidder", unit.bidders)] {
                    for item in items {
                        let mode = item.servingMode.rawValue + (item.servingModeReason.map { " (\($0))" } ?? "")
                        print(
                            "  \(kind) \(item.network) \(item.parameter): \(verdict(item.allowed, item.reason)); \(mode)"
                        )
                    }
                }
            }
        }

        private func verdict(_ allowed: Bool, _ reason: String?) -> String {
            allowed ? "allowed" : "denied: \(reason ?? "no reason given")"
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Clear this app's privacy state (the device's then stands for it), or the device's (no consent)."
        )
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var scope: Scope

        func run() async throws {
            let endpoint = scope.endpoint(app: Endpoints.clearPrivacy, device: Endpoints.clearDevicePrivacy)
            let reply = try await connection.client.request(endpoint).successful()
            if connection.json { return print(String(decoding: reply.body, as: UTF8.self), terminator: "") }
            try printState(reply, device: scope.device)
        }
    }
}

/// The state in `reply` (`{"privacy": ...}`), a field a line.
private func printState(_ reply: DaemonClient.Reply, device: Bool) throws {
    guard let state = try WireFormat.decoder().decode(PrivacyAnswer.self, from: reply.body).privacy else {
        return print(
            device
                ? "no device privacy state: no consent for apps that set none"
                : "no privacy state of its own: the device's stands for this app")
    }
    print("limit ad tracking  \(state.limitAdTracking)")
    print("gdpr applies       \(state.gdprApplies.map { "\($0)" } ?? "unknown")")
    // Consent strings are the platform's to read: only whether each is set is shown.
    print("tcf consent        \(state.tcfConsent == nil ? "-" : "set")")
    print("addtl consent      \(state.addtlConsent == nil ? "-" : "set")")
    print("gpp                \(state.gpp == nil ? "-" : "set")\(state.gppSid.map { " (sections \($0))" } ?? "")")
    print("us privacy         \(state.usPrivacy == nil ? "-" : "set")")
    if device {
        print("gpc                \(state.gpc.map { "\($0)" } ?? "-")")
        print("coppa              \(state.coppa.map { "\($0)" } ?? "-")")
    }
}
