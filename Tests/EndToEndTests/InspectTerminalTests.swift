import Foundation
import TestSupport
import Testing

/// `secure-signals inspect` as a developer runs it, in a terminal (tmux: keys sent, the pane
/// read): the list, one load's timeline with a row and bar per bidder and source, and
/// `--follow` printing a load made after it started.
@Suite(.serialized, .enabled(if: Binary.onPath("tmux") != nil))
struct InspectTerminalTests: MediationScenario {
    /// A tmux server of its own, one 200-column pane running a shell.
    struct Terminal: Sendable {
        let server = "secure-signals-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

        /// Runs `body` with a new terminal, closed after it whatever it does.
        static func with(_ body: (Terminal) async throws -> Void) async throws {
            let terminal = Terminal()
            try await terminal.tmux([
                "new-session", "-d", "-s", "t", "-x", "200", "-y", "60", "bash --norc --noprofile",
            ])
            do {
                try await body(terminal)
            } catch {
                await terminal.close()
                throw error
            }
            await terminal.close()
        }

        @discardableResult
        func tmux(_ arguments: [String]) async throws -> String {
            let result = try await Binary.runProgram(
                try #require(Binary.onPath("tmux")), ["-L", server, "-f", "/dev/null"] + arguments)
            #expect(result.status == 0, "tmux \(arguments): \(result.stderr)")
            return result.stdoutText
        }

        func type(_ line: String) async throws { try await tmux(["send-keys", "-t", "t", line, "Enter"]) }

        /// The pane's text, once `condition` holds of it (within 30 s).
        func screen(until condition: @escaping (String) -> Bool) async throws -> String {
            var text = ""
            do {
                try await waitUntil {
                    text = (try? await tmux(["capture-pane", "-p", "-J", "-t", "t"])) ?? ""
                    return condition(text)
                }
            } catch {
                Issue.record("the pane shows:\n\(text)")
                throw error
            }
            return text
        }

        func close() async { _ = try? await tmux(["kill-server"]) }
    }

    @Test func aLoadsTimelineHasARowAndBarPerBidderAndSourceAndFollowShowsNewLoads() async throws {
        let bidder = try await FakeAdServer()
        bidder.answer("*", .init(status: 200, contentType: "image/gif"))
        bidder.answer("/bid/silent", .init(status: 204))
        let unit = Self.unit(
            "native", [Self.testItem(Self.native, ["behavior": "error"]), Self.testItem(Self.native)],
            extra: [
                "bidders": [
                    ["network": "openrtb", "parameter": "silent", "options": ["endpoint": bidder.url("/bid/silent")]]
                ]
            ])
        let daemon = try await MediationTests.start(units: ["u": unit])
        let cli = Binary.path("secure-signals")
        let socket = daemon.socketPath
        try await Terminal.with { terminal in
            // --follow first: the load made after it starts shows as a line.
            try await terminal.type("\(cli) inspect --follow --socket \(socket)")
            _ = try await terminal.screen { $0.contains("following new traces") }  // subscribed
            let load = try await Binary.run("secure-signals", ["ads", "load", "--ad-unit", "u", "--socket", socket])
            #expect(load.status == 0, "\(load.stderr)")
            let followed = try await terminal.screen { $0.contains("load ") && $0.contains(" u ") }
            let row = try #require(followed.split(separator: "\n").first { $0.hasPrefix("load ") })
            #expect(row.contains("filled by test") && row.contains("(1 bidder, 2 sources)"), "\(followed)")
            let id = try #require(row.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first)
            try await terminal.tmux(["send-keys", "-t", "t", "C-c", ""])

            try await terminal.type("clear; \(cli) inspect load \(id) --socket \(socket)")
            let screen = try await terminal.screen {
                $0.contains("line ") && $0.contains("filled") && $0.contains("bidder")
            }
            let lines = screen.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.hasPrefix("load \(id)  u  native") }, "\(screen)")
            let bidderRow = try #require(lines.first { $0.hasPrefix("bidder") }, "\(screen)")
            #expect(
                bidderRow.contains("openrtb silent") && bidderRow.contains("no_bid") && bidderRow.contains("|#"),
                "\(bidderRow)")
            let rows = lines.filter { $0.hasPrefix("line ") }
            #expect(rows.count == 2, "\(screen)")
            #expect(rows.first?.contains("error: the test network was told to fail") == true, "\(rows)")
            #expect(rows.last?.contains("filled") == true && rows.allSatisfy { $0.contains("#") }, "\(rows)")
            // Each bar sits between two `|`, all of one width.
            let bars = ([bidderRow] + rows).compactMap { row -> Int? in
                guard let open = row.firstIndex(of: "|"), let close = row[row.index(after: open)...].firstIndex(of: "|")
                else { return nil }
                return row.distance(from: open, to: close)
            }
            #expect(bars.count == 3 && Set(bars).count == 1, "\(screen)")

            // The list: the load and, newest first, nothing of another kind between.
            try await terminal.type("clear; \(cli) inspect --socket \(socket)")
            let list = try await terminal.screen { $0.contains("load    \(id)") }
            #expect(list.contains("filled by test"), "\(list)")
            let unknown = try await Binary.run("secure-signals", ["inspect", "load", "999999", "--socket", socket])
            #expect(unknown.status != 0 && unknown.stderr.contains("unknown_trace"), "\(unknown.stderr)")
        }
    }
}
