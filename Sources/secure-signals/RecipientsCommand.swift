import API
import ArgumentParser
import Client
import SharedTypes

struct RecipientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recipients",
        abstract: "List the recipients signals are sealed for: their key ids, and how fresh a fetched key set is.",
        discussion: """
            A recipient's keys come from files (source file), the built-in demo key (demo), or \
            its key_url (source url), fetched by the daemon and refreshed at half its lifetime. \
            A fetched set is fresh for its max-age, then stale (still sealing while refreshes \
            fail) up to max_stale_ms, then expired. Exits 1 when a recipient has no key to seal \
            with (expired or unavailable, and no key_configs files to fall back on), 2 when no \
            daemon answers.
            """)

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let recipients: [RecipientStatus]
        do {
            recipients = try await connection.client.recipients()
        } catch {
            printError(error)
            throw ExitCode(2)
        }
        if connection.json {
            try await printRaw(connection, Endpoints.recipients)
        } else {
            print(
                Table(
                    header: ["NAME", "SOURCE", "STATE", "KEY IDS", "FRESH UNTIL", "STALE UNTIL", "URL / LAST ERROR"],
                    rows: recipients.map {
                        [
                            $0.name, $0.source.rawValue, $0.state.rawValue,
                            $0.keyIDs.isEmpty ? "-" : $0.keyIDs.map(String.init).joined(separator: ","),
                            $0.freshUntil ?? "-", $0.staleUntil ?? "-",
                            [$0.url, $0.lastError].compactMap { $0 }.joined(separator: ": ").nonEmpty ?? "-",
                        ]
                    }))
        }
        if recipients.contains(where: { $0.keyIDs.isEmpty }) { throw ExitCode(1) }
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
