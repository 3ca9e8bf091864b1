import SharedTypes

/// `apps` in the configuration: the apps the daemon knows, each by its id, how each is
/// recognized and what it may do; and what a peer that is none of them gets.
@Settings
struct AppSettings: Codable, Sendable, Equatable {
    /// What an allowed peer that matches no app gets.
    enum Unknown: String, Codable, Sendable {
        /// Each uid is an app of its own (`uid:1000`) that may ask for signals and ads.
        case anonymous
        /// 403 `unknown_app`.
        case refuse
    }

    var unknown = Unknown.anonymous
    /// By app id: a reverse-DNS name (`tv.example.news`) or a store's numeric id.
    var registered: [String: RegisteredApp] = [:]

    init() {}

    func validate(at codingPath: [any CodingKey]) throws {
        let path = codingPath + [CodingKeys.registered]
        let ids = registered.keys.sorted()
        for id in ids where !Self.isAppID(id) {
            throw StrictJSON.Failure(
                at: path, AnyCodingKey(id), "is not an app id: a reverse-DNS name (tv.example.news) or a store id")
        }
        for (index, id) in ids.enumerated() {
            guard let app = registered[id] else { continue }
            for other in ids[(index + 1)...] where registered[other].map({ app.match.overlaps($0.match) }) ?? false {
                throw StrictJSON.Failure(
                    at: path + [AnyCodingKey(id)], RegisteredApp.CodingKeys.match,
                    "could match the same peer as \(other)'s: give both a uid, gid, cgroup or exe that tells them apart"
                )
            }
            for hosted in app.hosts {
                guard let hostedApp = registered[hosted] else {
                    throw StrictJSON.Failure(
                        at: path + [AnyCodingKey(id)], RegisteredApp.CodingKeys.hosts,
                        "names \(hosted), which is not a registered app")
                }
                if let power = hostedApp.capabilities.first(where: RegisteredApp.privileged.contains) {
                    throw StrictJSON.Failure(
                        at: path + [AnyCodingKey(id)], RegisteredApp.CodingKeys.hosts,
                        "names \(hosted), which has \(power.rawValue): a broker's content may not have it")
                }
            }
            if !app.match.namesCredentials,
                !app.hosts.isEmpty || app.capabilities.contains(where: RegisteredApp.privileged.contains)
            {
                throw StrictJSON.Failure(
                    at: path + [AnyCodingKey(id)], RegisteredApp.CodingKeys.match,
                    "must name a uid or gid: a broker, or an app with device_privacy or inspect, is not recognized by its cgroup or executable alone"
                )
            }
        }
    }

    /// `tv.example.news`: lowercase labels joined by dots (two at least), or a store's digits.
    static func isAppID(_ id: String) -> Bool {
        if !id.isEmpty, id.utf8.count <= 100, id.allSatisfy(\.isASCII), id.allSatisfy(\.isNumber) { return true }
        let labels = id.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && id.utf8.count <= 255
            && labels.allSatisfy { label in
                guard let first = label.first, first.isLetter || first.isNumber else { return false }
                return label.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == "_") }
            }
    }
}

/// One registered app: how it is recognized, what it may do, what bid requests say of it, and,
/// for a runtime hosting several apps in one process (a broker), which apps it speaks for.
@Settings
struct RegisteredApp: Codable, Sendable, Equatable {
    var match: AppMatch
    var capabilities = AppCapability.byDefault
    /// The OpenRTB `app` its bid requests carry.
    var app = AppDescription()
    /// The apps this broker hosts (named per request in `Secure-Signals-App`).
    var hosts: [String] = []

    /// What only an app the kernel's credentials name may have, and no broker may lend.
    static let privileged: Set<AppCapability> = [.devicePrivacy, .inspect]
}
