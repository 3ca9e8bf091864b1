import API
import ArgumentParser
import SharedTypes

extension AdsCommand {
    /// `secure-signals ads units`: the "is capped" check from a shell.
    struct Units: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the ad units, their frequency caps, and whether this user is capped now.",
            discussion: """
                Caps count per app, that is per uid: run it as the app's user to see what that app \
                would be told. CAPS shows the impressions counted in each cap's window.
                """)
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            if connection.json { return try await printRaw(connection, Endpoints.adUnits) }
            let reply = try await connection.client.request(Endpoints.adUnits).successful()
            guard let units = readable(AdUnitList.self, reply.body)?.adUnits else { return }
            guard !units.isEmpty else { return print("no ad units") }
            print(
                Table(
                    header: ["AD UNIT", "FORMAT", "CAPS", "PACING", "CAPPED", "READY"],
                    rows: units.map { unit in
                        let caps = unit.frequencyCaps.map { cap in
                            "\(cap.shown) of \(cap.impressions) per " + span(cap.perMilliseconds)
                        }
                        let capped =
                            unit.capped
                            ? "until \(unit.cappedUntil ?? "?") (in " + span(unit.retryAfterMilliseconds ?? 0) + ")"
                            : "no"
                        return [
                            unit.id, unit.format.rawValue, caps.isEmpty ? "-" : caps.joined(separator: ", "),
                            unit.pacingMilliseconds.map(span) ?? "-", capped, unit.ready ? "yes" : "no",
                        ]
                    }))
        }

        /// Milliseconds as the two largest units they hold, such as "1 h" or "29 min 14 s";
        /// seconds rounded up, and under a second in ms.
        private func span(_ milliseconds: Int64) -> String {
            guard milliseconds >= 1000 else { return "\(milliseconds) ms" }
            var seconds = (milliseconds + 999) / 1000
            var parts: [String] = []
            for (name, size) in [("d", Int64(86_400)), ("h", 3600), ("min", 60), ("s", 1)] where seconds >= size {
                parts.append("\(seconds / size) \(name)")
                seconds %= size
            }
            return parts.prefix(2).joined(separator: " ")
        }
    }
}
