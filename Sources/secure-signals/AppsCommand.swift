import API
import ArgumentParser
import Client
import FoundationEssentials
import SharedTypes

/// `secure-signals apps`: the apps the daemon knows, which are connected now, and each one's
/// privacy state (whether set, never its strings).
struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "List the apps the daemon knows: registered or seen, connected now, and each one's privacy state.",
        discussion: """
            Needs the inspect capability (root and the daemon's own user have it). An app is \
            connected while it has requests being answered or an event stream open; LAST SEEN is \
            how long ago its last request came. PRIVACY is its own state (own, with lat when it \
            limits ad tracking) or device (it set none: the device's stands for it). Consent \
            strings are never printed: --json shows them.
            """)

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        if connection.json { return try await printRaw(connection, Endpoints.apps) }
        let reply = try await connection.client.request(Endpoints.apps).successful()
        let apps = try WireFormat.decoder().decode(AppList.self, from: reply.body).apps
        guard !apps.isEmpty else { return print("no apps") }
        print(
            Table(
                header: ["APP", "REGISTERED", "CAPABILITIES", "CONNECTED", "LAST SEEN", "PRIVACY"],
                rows: apps.map { app in
                    let connected =
                        app.requestsInFlight + app.eventStreams == 0
                        ? "no" : "yes (\(app.requestsInFlight) requests, \(app.eventStreams) streams)"
                    let privacy = app.privacy.map { $0.limitAdTracking ? "own, lat" : "own" } ?? "device"
                    return [
                        app.id + (app.hosts.isEmpty ? "" : " (hosts \(app.hosts.joined(separator: ", ")))"),
                        app.registered ? "yes" : "no",
                        app.capabilities.isEmpty ? "-" : app.capabilities.map(\.rawValue).joined(separator: ","),
                        connected, app.lastSeenAgo.map { "\(Double($0) / 1000) s ago" } ?? "-", privacy,
                    ]
                }))
    }
}
