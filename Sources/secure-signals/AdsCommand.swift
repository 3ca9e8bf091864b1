import API
import ArgumentParser
import Client
import FoundationEssentials
import NIOHTTP1
import SharedTypes

/// `secure-signals ads ...`: native and rewarded ads through the daemon.
struct AdsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ads",
        abstract: "Load ads, report their lifecycle, and follow their events.",
        discussion: """
            A session with the seeds' test rewarded unit (served by the embedded default):
              secure-signals ads load --ad-unit /6499/example/rewarded --format rewarded
              secure-signals ads show AD_ID
              secure-signals ads progress AD_ID complete
              secure-signals ads dismiss AD_ID
            and, in another terminal, `secure-signals ads events` to watch reward_earned \
            come before dismissed.
            """,
        subcommands: [
            Load.self, Get.self, Impression.self, Click.self, Show.self, Progress.self, Dismiss.self,
            PlaybackError.self,
            Events.self, Units.self,
        ]
    )

    struct Load: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load an ad for an ad unit (joins a load under way; returns a ready ad unless --force).")

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case native, rewarded
            /// A native load that lists the custom native formats the client renders.
            case custom
        }

        @Option(help: "The ad unit, e.g. /21775744923/example/native.")
        var adUnit: String

        @Option(help: "native, rewarded, or custom (native with --format-id).")
        var format: Format = .native

        @Option(help: "A custom native format id the client renders (repeatable).")
        var formatId: [String] = []

        @Flag(help: "Load a new ad even if one is ready.")
        var force = false

        @Option(help: "Media aspect ratio preference: any, landscape or portrait.")
        var mediaAspectRatio: MediaAspectRatio?

        @Flag(help: "Image URLs only; the daemon fetches no image bytes.")
        var disableImageLoading = false

        @Flag(help: "All of the ad's images, not only the first.")
        var multipleImages = false

        @Option(help: "A URL scheme the client can open, for deep links (repeatable).")
        var openableScheme: [String] = []

        @Option(help: "Server-side verification: the user id (rewarded).")
        var userId: String?

        @Option(help: "Server-side verification: custom data (rewarded).")
        var customData: String?

        @Flag(help: "A test load (the app needs the test capability): OpenRTB test 1, no cap, no billing.")
        var test = false

        @Option(help: "With --test: the one source to try alone, NETWORK:PARAMETER (as `inspect` shows it).")
        var lineItem: String?

        @OptionGroup var connection: ConnectionOptions

        func validate() throws {
            if format == .custom, formatId.isEmpty { throw ValidationError("--format custom needs --format-id") }
            if !formatId.isEmpty, format == .rewarded { throw ValidationError("--format-id is for native loads") }
            if lineItem != nil, !test { throw ValidationError("--line-item is for a test load: add --test") }
        }

        func run() async throws {
            var body = AdLoadBody(adUnit: adUnit, format: format == .rewarded ? .rewarded : .native)
            body.formatIDs = formatId
            body.force = force
            body.test = test
            body.lineItem = lineItem
            var options = AdLoadBody.NativeOptions()
            options.mediaAspectRatio = mediaAspectRatio
            options.disableImageLoading = disableImageLoading
            options.multipleImages = multipleImages
            options.openableSchemes = openableScheme
            if options != AdLoadBody.NativeOptions() { body.options = options }
            if userId != nil || customData != nil { body.ssv = AdLoadBody.SSV(customData: customData, userID: userId) }
            let reply = try await connection.client.request(
                Endpoints.loadAd, json: try WireFormat.encoder().encode(body))
            if connection.json {
                printBody(reply.body)
                if !(200..<300).contains(reply.status) { throw ExitCode(1) }
                return
            }
            guard (200..<300).contains(reply.status) else {
                let failure = reply.errorAnswer
                let tried = bids(in: failure?.responseInfo) + attempts(in: failure?.responseInfo)
                throw CommandFailure(
                    "load failed: \(failure?.error.code ?? "\(reply.status)"): \(failure?.error.message ?? "")"
                        + (tried.isEmpty ? "" : " (tried: \(tried.joined(separator: "; ")))"))
            }
            if let ad = readable(MediatedAd.self, reply.body) { printSummary(of: ad) }
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a loaded ad: a summary, or the daemon's JSON with --json.")
        @Argument(help: "The ad's id.") var adId: String
        @OptionGroup var connection: ConnectionOptions
        func run() async throws {
            if connection.json { return try await printRaw(connection, Endpoints.ad, adId) }
            printSummary(of: try await connection.client.ad(adId))
        }
    }

    struct Impression: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record an ad's impression (once; a repeat counts nothing).")
        @Argument(help: "The ad's id.") var adId: String
        @OptionGroup var connection: ConnectionOptions
        func run() async throws { try await lifecycle(connection, adId, Endpoints.impression) }
    }

    struct Click: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Record a click and print where it leads.")
        @Argument(help: "The ad's id.") var adId: String
        @Option(help: "The asset clicked, e.g. headline or call_to_action.") var asset: String?
        @OptionGroup var connection: ConnectionOptions
        func run() async throws {
            try await lifecycle(connection, adId, Endpoints.click, body: ClickBody(asset: asset))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a rewarded ad (once).")
        @Argument(help: "The ad's id.") var adId: String
        @OptionGroup var connection: ConnectionOptions
        func run() async throws { try await lifecycle(connection, adId, Endpoints.show) }
    }

    struct Progress: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Report a rewarded video's progress: start, first_quartile, midpoint, third_quartile, complete, skip.")
        @Argument(help: "The ad's id.") var adId: String
        @Argument(help: "The event.") var event: VideoProgress
        @OptionGroup var connection: ConnectionOptions
        func run() async throws {
            try await lifecycle(connection, adId, Endpoints.progress, body: ProgressBody(event: event))
        }
    }

    struct Dismiss: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Dismiss a shown rewarded ad.")
        @Argument(help: "The ad's id.") var adId: String
        @OptionGroup var connection: ConnectionOptions
        func run() async throws { try await lifecycle(connection, adId, Endpoints.dismiss) }
    }

    struct PlaybackError: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "error",
            abstract: "Report that a shown rewarded video cannot be played, with its VAST error code.",
            discussion: "The ad's VAST Error URLs are fired once with the code, e.g. 405 (cannot display the media).")
        @Argument(help: "The ad's id.") var adId: String
        @Argument(help: "The VAST error code, 100 to 999 (400 general, 401 file not found, 402 timeout, 405 display).")
        var code: Int
        @OptionGroup var connection: ConnectionOptions
        func validate() throws {
            guard (100...999).contains(code) else { throw ValidationError("the code must be 100 to 999") }
        }
        func run() async throws {
            try await lifecycle(connection, adId, Endpoints.playbackError, body: PlaybackErrorBody(code: code))
        }
    }

    struct Events: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Follow the daemon's ad events (Server-Sent Events) until interrupted.")
        @Option(help: "Only this ad unit's events.") var adUnit: String?
        @Option(help: "Only this ad's events.") var adId: String?
        @OptionGroup var connection: ConnectionOptions
        func run() async throws {
            let events = try await connection.client.events(adUnit: adUnit, adID: adId)
            for try await event in events {
                // Written straight to fd 1, so that each event shows at once even into a pipe.
                let line =
                    connection.json
                    ? event.data
                    : "\(event.name.padded(to: 16)) \(event.data)"
                try Array((line + "\n").utf8).withUnsafeBytes { try StandardStreams.write($0) }
            }
        }
    }
}

/// POSTs a lifecycle call and prints its answer: JSON with --json, else one line.
private func lifecycle(
    _ connection: ConnectionOptions, _ adID: String, _ endpoint: Endpoint, body: some Encodable = [String: String]()
) async throws {
    let json = try WireFormat.encoder().encode(body)
    let reply = try await connection.client.request(endpoint, adID, json: json).successful()
    // The call's name: the last segment of its path (`impression`, `error`).
    let action = endpoint.pattern.split(separator: "/").last.map(String.init) ?? endpoint.pattern
    if connection.json { return printBody(reply.body) }
    guard let outcome = readable(LifecycleOutcome.self, reply.body) else { return }
    var line = outcome.recorded ? "\(action): recorded" : "\(action): not recorded (\(outcome.reason ?? "?"))"
    if let target = outcome.action { line += "; open \(target.type.rawValue) \(target.url ?? "")" }
    print(line)
}

/// An ad's answer (`POST /v1/ads`, `GET /v1/ads/{id}`) as a few lines: id, format, what it shows,
/// its reward, its waterfall and its bids.
private func printSummary(of ad: MediatedAd) {
    print("ad \(ad.adID)  \(ad.format.rawValue)  expires \(ad.expiresAt)" + (ad.test == true ? "  (test ad)" : ""))
    if let native = ad.native { print("native: \(native.headline)") }
    if let custom = ad.customNative {
        print("custom native \(custom.formatID): \(custom.assets.keys.sorted().joined(separator: ", "))")
    }
    if let reward = ad.reward { print("reward: \(number(reward.amount)) \(reward.type)") }
    print("waterfall: \(attempts(in: ad.responseInfo).joined(separator: "; "))")
    if let asked = ad.responseInfo.bids {
        print("bids: \(asked.isEmpty ? "none" : bids(in: ad.responseInfo).joined(separator: "; "))")
    }
}

/// The waterfall's attempts of a load, one short text each: network, parameter, outcome,
/// latency, and why it did not fill.
private func attempts(in info: ResponseInfo?) -> [String] {
    (info?.attempts ?? []).map {
        "\($0.network) \($0.parameter) \($0.outcome.rawValue) \(number($0.latencyMilliseconds)) ms"
            + ($0.message.map { ": \($0)" } ?? "")
    }
}

/// The auction's bids of a load, one short text each: network, parameter, outcome, price and
/// loss reason when there are, latency, message.
private func bids(in info: ResponseInfo?) -> [String] {
    (info?.bids ?? []).map {
        "\($0.network) \($0.parameter) \($0.outcome.rawValue)" + ($0.price.map { " \(number($0)) CPM" } ?? "")
            + ($0.lossReason.map { " (loss reason \($0.rawValue))" } ?? "") + " \(number($0.latencyMilliseconds)) ms"
            + ($0.message.map { ": \($0)" } ?? "")
    }
}

/// A number as the wire format writes it, a whole one without a fraction (`10`, `2.5`).
private func number(_ value: Double) -> String { JSONValue.number(value).description }

/// `body` read as `T`; or, for an answer this CLI cannot read (a newer daemon's format, asset
/// or outcome), nil, once it is printed as the daemon wrote it and the reason said on stderr:
/// what the daemon did is always shown, never lost behind a decoding error.
func readable<T: Decodable>(_ type: T.Type, _ body: Data) -> T? {
    do {
        return try WireFormat.decoder().decode(type, from: body)
    } catch {
        printError(CommandFailure("an answer this version cannot read (\(error)); the daemon's JSON follows"))
        printBody(body)
        return nil
    }
}

func printBody(_ body: Data) {
    print(String(decoding: body, as: UTF8.self), terminator: body.last == UInt8(ascii: "\n") ? "" : "\n")
}

extension MediaAspectRatio: ExpressibleByArgument {}
extension VideoProgress: ExpressibleByArgument {}
