import SharedTypes

/// The apps the daemon knows (`apps`), and which one a request speaks for: recognized from the
/// peer's credentials and process, or, for a broker, from the hosted app its request names.
public struct AppRegistry: Sendable {
    /// Why a request speaks for no app.
    public enum Refusal: Error, Equatable {
        /// No registered app matches the peer, and `apps.unknown` is `refuse`.
        case unknownApp
        /// The request names an app (`Secure-Signals-App`) its peer may not speak for.
        case notHosted(String)
    }

    private let settings: AppSettings
    /// The daemon's own uid: like root, the operator's, with every capability.
    private let ownUID: UInt32
    /// Whether an app is recognized by its cgroup or executable: only then does a connection
    /// read its peer's process (a registry taken by a reload applies to new connections).
    let readsProcess: Bool

    /// What an operator's and an anonymous app may do, made once and shared by their requests.
    private static let everything = Set(AppCapability.allCases)
    private static let byDefault = Set(AppCapability.byDefault)

    /// Each registered app's identity, made once: every request of an app shares it.
    private let identities: [String: AppIdentity]

    init(_ settings: AppSettings, ownUID: UInt32) {
        self.settings = settings
        self.ownUID = ownUID
        identities = Dictionary(
            uniqueKeysWithValues: settings.registered.map { id, app in
                (id, AppIdentity(id: id, capabilities: Set(app.capabilities), description: app.app))
            })
        readsProcess = settings.registered.values.contains { $0.match.cgroup != nil || $0.match.exe != nil }
    }

    /// The app `peer`, running as `process`, is; or the one it names in `hostedApp`, when it
    /// is a broker that hosts it.
    func app(for peer: PeerCredentials, _ process: PeerProcess, naming hostedApp: String? = nil) throws(Refusal)
        -> AppIdentity
    {
        let matching = settings.registered.filter { $0.value.match.matches(peer, process) }
        // The configuration refuses two apps one peer could be: two matching is a bug, refused.
        guard matching.count <= 1 else { throw .unknownApp }
        let registered = matching.first
        if let hostedApp {
            guard let broker = registered?.value, broker.hosts.contains(hostedApp),
                let hosted = settings.registered[hostedApp]
            else { throw .notHosted(hostedApp) }
            return identity(hostedApp, hosted)
        }
        if let (id, app) = registered { return identity(id, app) }
        if peer.uid == 0 || peer.uid == ownUID {
            return AppIdentity(id: "uid:\(peer.uid)", capabilities: Self.everything)
        }
        guard settings.unknown == .anonymous else { throw .unknownApp }
        return AppIdentity(id: "uid:\(peer.uid)", capabilities: Self.byDefault)
    }

    private func identity(_ id: String, _ app: RegisteredApp) -> AppIdentity {
        identities[id] ?? AppIdentity(id: id, capabilities: Set(app.capabilities), description: app.app)
    }

    /// The registered apps, by id.
    var registered: [String: RegisteredApp] { settings.registered }

    /// A line for each registered app (how it is recognized, what it may do, whom it hosts),
    /// then what other peers get: for `--check-config`.
    var summary: [String] {
        let apps = settings.registered.sorted { $0.key < $1.key }.map { id, app in
            let match = [
                app.match.uid.map { "uid \($0)" }, app.match.gid.map { "gid \($0)" },
                app.match.cgroup.map { "cgroup \($0)" }, app.match.exe.map { "exe \($0)" },
            ].compactMap { $0 }.joined(separator: ", ")
            let hosts = app.hosts.isEmpty ? "" : "; hosts \(app.hosts.joined(separator: ", "))"
            return "\(id) (\(match)): \(app.capabilities.map(\.rawValue).joined(separator: ", "))\(hosts)"
        }
        let others =
            settings.unknown == .anonymous
            ? "any other allowed uid: an app of its own (\(AppCapability.byDefault.map(\.rawValue).joined(separator: ", ")))"
            : "any other peer: refused (unknown_app)"
        return apps + [others]
    }
}
