import FoundationEssentials
import SharedTypes

/// How `secure-signals inspect` writes traces: a line each in a list, and one load as a text
/// timeline (a row per bidder and source, with its bar over the load's time).
enum TraceText {
    /// The width of a timeline's bars, in characters.
    static let barWidth = 32

    /// A load in one line: id, when, app, unit, outcome, duration, what it tried.
    static func line(_ load: LoadTrace) -> String {
        let tried =
            "\(load.bidders.count) bidder\(load.bidders.count == 1 ? "" : "s"), "
            + "\(load.sources.count) source\(load.sources.count == 1 ? "" : "s")"
        let outcome = load.outcome == "filled" ? "filled by \(load.network ?? "?")" : load.outcome
        return "load    \(String(load.id).padded(to: 6)) \(time(load.startedAtMilliseconds))  "
            + "\((load.app ?? "-").padded(to: 20)) \(load.adUnit.padded(to: 28)) "
            + "\(outcome) in \(milliseconds(load.durationMilliseconds)) (\(tried))"
            + (load.retry.map { " retry \($0)" } ?? "") + (load.test ? " test" : "")
    }

    /// A signals request in one line: id, when, app, request id, each adapter's outcome.
    static func line(_ signals: SignalsTrace) -> String {
        let adapters = signals.adapters.map { "\($0.adapter) \($0.outcome)" }.joined(separator: ", ")
        return "signals \(String(signals.id).padded(to: 6)) \(time(signals.startedAtMilliseconds))  "
            + "\((signals.app ?? "-").padded(to: 20)) \(signals.requestID.padded(to: 28)) "
            + "\(milliseconds(signals.durationMilliseconds)): \(adapters.isEmpty ? "no adapter" : adapters)"
    }

    /// One load as a timeline: a header, then a row per bidder and per source tried, each with
    /// its bar (where it began and how long it took, over the load's whole time), latency and
    /// outcome, then its details (price, bid, loss reason, message).
    static func timeline(_ load: LoadTrace) -> [String] {
        let total = max(
            load.durationMilliseconds,
            (load.bidders.map { $0.startMilliseconds + $0.latencyMilliseconds }
                + load.sources.map { $0.startMilliseconds + $0.latencyMilliseconds }).max() ?? 0, 0.001)
        var lines = [
            "load \(load.id)  \(load.adUnit)  \(load.format.rawValue)  app \(load.app ?? "-")  "
                + "\(time(load.startedAtMilliseconds))",
            (load.outcome == "filled"
                ? "filled by \(load.network ?? "?") (ad \(load.adID ?? "?"))"
                : "\(load.outcome): \(load.message ?? "")")
                + " in \(milliseconds(load.durationMilliseconds)); privacy: \(privacy(load.privacy))",
            "".padded(to: 32) + "0" + "".padded(to: barWidth - 1) + milliseconds(total),
        ]
        for bidder in load.bidders {
            var detail = bidder.outcome.rawValue
            if let price = bidder.price { detail += " \(number(price)) \(bidder.currency ?? "")" }
            if let reason = bidder.lossReason { detail += " (loss reason \(reason.rawValue))" }
            if let bid = bidder.bid {
                let parts = [
                    bid.seat.map { "seat \($0)" }, bid.bidID.map { "bid \($0)" }, bid.creativeID.map { "crid \($0)" },
                    bid.advertiserDomains.isEmpty ? nil : bid.advertiserDomains.joined(separator: ","),
                ].compactMap { $0 }
                if !parts.isEmpty { detail += " " + parts.joined(separator: " ") }
            }
            if let message = bidder.message { detail += ": \(message)" }
            lines.append(
                row(
                    "bidder", "\(bidder.network) \(bidder.parameter)", start: bidder.startMilliseconds,
                    latency: bidder.latencyMilliseconds, total: total, detail: detail))
        }
        for source in load.sources {
            let kind = source.kind == .lineItem ? "line" : "bid"
            let detail = source.outcome.rawValue + (source.message.map { ": \($0)" } ?? "")
            lines.append(
                row(
                    kind, "\(source.network) \(source.parameter)", start: source.startMilliseconds,
                    latency: source.latencyMilliseconds, total: total, detail: detail))
        }
        if load.bidders.isEmpty && load.sources.isEmpty { lines.append("(nothing was tried)") }
        for notice in load.notices {
            let status = notice.status.map { " HTTP \($0)" } ?? ""
            let tries = "\(notice.attempts) \(notice.attempts == 1 ? "try" : "tries")"
            lines.append(
                "notice " + "\(notice.kind.rawValue) \(notice.network) \(notice.parameter)".padded(to: 25)
                    + " \(notice.outcome.rawValue)\(status) after \(tries)")
        }
        return lines
    }

    /// A row: kind, name, `|` bar `|`, latency, detail.
    private static func row(
        _ kind: String, _ name: String, start: Double, latency: Double, total: Double, detail: String
    ) -> String {
        let from = min(barWidth - 1, Int((start / total * Double(barWidth)).rounded(.down)))
        let length = max(1, min(barWidth - from, Int((latency / total * Double(barWidth)).rounded(.up))))
        let bar =
            String(repeating: " ", count: from) + String(repeating: "#", count: length)
            + String(repeating: " ", count: barWidth - from - length)
        let shownName = name.count > 24 ? String(name.prefix(23)) + "~" : name
        return
            "\(kind.padded(to: 6)) \(shownName.padded(to: 24)) |\(bar)| \(milliseconds(latency).padded(to: 10)) \(detail)"
    }

    private static func privacy(_ summary: PrivacySummary) -> String {
        guard summary.set else { return "none set (\(summary.servingMode.rawValue))" }
        let present = [
            summary.tcf ? "tcf" : nil, summary.gppSections.isEmpty ? nil : "gpp \(summary.gppSections)",
            summary.usPrivacy ? "us_privacy" : nil, summary.limitAdTracking ? "lat" : nil, summary.gpc ? "gpc" : nil,
            summary.coppa ? "coppa" : nil, summary.gdprApplies == true ? "gdpr" : nil,
        ].compactMap { $0 }
        return (present.isEmpty ? "set" : present.joined(separator: " ")) + " (\(summary.servingMode.rawValue))"
    }

    /// `HH:MM:SS.mmm`, UTC.
    static func time(_ epochMilliseconds: Int64) -> String {
        let day = ((epochMilliseconds % 86_400_000) + 86_400_000) % 86_400_000
        let (hours, minutes, seconds, millis) = (
            day / 3_600_000, day / 60_000 % 60, day / 1000 % 60, day % 1000
        )
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let milli = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(two(hours)):\(two(minutes)):\(two(seconds)).\(milli)"
    }

    private static func milliseconds(_ value: Double) -> String { "\(number((value * 10).rounded() / 10)) ms" }

    private static func number(_ value: Double) -> String { JSONValue.number(value).description }
}
