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
            let units = jsonAnswer(reply.body)["ad_units"]?.array ?? []
            guard !units.isEmpty else { return print("no ad units") }
            print(
                Table(
                    header: ["AD UNIT", "FORMAT", "CAPS", "PACING", "CAPPED", "READY"],
                    rows: units.map { unit in
                        let caps = (unit["frequency_caps"]?.array ?? []).map { cap in
                            "\(whole(cap["shown"])) of \(whole(cap["impressions"])) per "
                                + span(cap["per_ms"]?.number ?? 0)
                        }
                        let capped =
                            unit["capped"]?.bool == true
                            ? "until \(unit["capped_until"]?.string ?? "?") (in "
                                + span(unit["retry_after_ms"]?.number ?? 0) + ")"
                            : "no"
                        return [
                            unit["id"]?.string ?? "?", unit["format"]?.string ?? "?",
                            caps.isEmpty ? "-" : caps.joined(separator: ", "),
                            unit["pacing_ms"]?.number.map(span) ?? "-", capped,
                            unit["ready"]?.bool == true ? "yes" : "no",
                        ]
                    }))
        }

        private func whole(_ value: JSONValue?) -> String {
            value?.number.map { String(Int64($0)) } ?? "?"
        }

        /// Milliseconds as the two largest units they hold, such as "1 h" or "29 min 14 s";
        /// seconds rounded up, and under a second in ms.
        private func span(_ milliseconds: Double) -> String {
            guard milliseconds >= 1000 else { return "\(Int64(milliseconds)) ms" }
            var seconds = Int64((milliseconds / 1000).rounded(.up))
            var parts: [String] = []
            for (name, size) in [("d", Int64(86_400)), ("h", 3600), ("min", 60), ("s", 1)] where seconds >= size {
                parts.append("\(seconds / size) \(name)")
                seconds %= size
            }
            return parts.prefix(2).joined(separator: " ")
        }
    }
}
