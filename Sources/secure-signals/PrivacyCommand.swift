import API
import ArgumentParser
import Client
import SharedTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

struct PrivacyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "privacy",
        abstract: "Show, set or clear the device's privacy state (consent), which every adapter is handed.",
        subcommands: [Get.self, Set.self, Clear.self, Decoded.self], defaultSubcommand: Get.self)

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the privacy state (none: no consent).")
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            if connection.json { return try await printRaw(connection, Endpoints.privacy) }
            try printState(try await connection.client.request(Endpoints.privacy).successful())
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the privacy state, replacing the one in force.",
            discussion: """
                Example:
                  secure-signals privacy set --limit-ad-tracking false --tcf-consent CPc... --gdpr-applies true
                """)
        @OptionGroup var connection: ConnectionOptions

        @Option(help: "Whether the user limited ad tracking: true or false.")
        var limitAdTracking: Bool

        @Option(help: "The IAB TCF consent string.")
        var tcfConsent: String?

        @Option(help: "The IAB GPP string.")
        var gpp: String?

        @Option(name: .customLong("gpp-sid"), help: "A GPP section id in force; repeat for several.")
        var gppSid: [Int] = []

        @Option(help: "The IAB US Privacy string, e.g. 1YNN.")
        var usPrivacy: String?

        @Option(help: "Whether the GDPR applies here: true or false (default: unknown).")
        var gdprApplies: Bool?

        func run() async throws {
            let state = PrivacyState(
                limitAdTracking: limitAdTracking, tcfConsent: tcfConsent, gpp: gpp,
                gppSid: gppSid.isEmpty ? nil : gppSid,
                usPrivacy: usPrivacy, gdprApplies: gdprApplies)
            let body = try WireFormat.encoder().encode(PrivacyBody(privacy: state))
            let reply = try await connection.client.request(Endpoints.setPrivacy, json: body).successful()
            if connection.json { return print(String(decoding: reply.body, as: UTF8.self), terminator: "") }
            try printState(reply)
        }
    }

    struct Decoded: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the consent strings in force, decoded: the TC string, the GPP sections, US Privacy.",
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

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Clear the privacy state: no state is no consent, as before the platform set one.")
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            let reply = try await connection.client.request(Endpoints.clearPrivacy).successful()
            if connection.json { return print(String(decoding: reply.body, as: UTF8.self), terminator: "") }
            try printState(reply)
        }
    }
}

/// The state in `reply` (`{"privacy": ...}`), a field a line.
private func printState(_ reply: DaemonClient.Reply) throws {
    guard let state = try WireFormat.decoder().decode(PrivacyAnswer.self, from: reply.body).privacy else {
        return print("no privacy state: no consent")
    }
    print("limit ad tracking  \(state.limitAdTracking)")
    print("gdpr applies       \(state.gdprApplies.map { "\($0)" } ?? "unknown")")
    // Consent strings are the platform's to read: only whether each is set is shown.
    print("tcf consent        \(state.tcfConsent == nil ? "-" : "set")")
    print("gpp                \(state.gpp == nil ? "-" : "set")\(state.gppSid.map { " (sections \($0))" } ?? "")")
    print("us privacy         \(state.usPrivacy == nil ? "-" : "set")")
}
