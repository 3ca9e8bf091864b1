/// The `# HELP` text of every metric family the daemon's parts count through swift-metrics
/// (whose factory gives none). docs/api.md's table lists the same families; a test keeps them so.
enum MetricHelp {
    static let texts: [String: String] = [
        "secure_signals_adapter_collection_seconds": "Time an adapter took to answer a signals request.",
        "secure_signals_adapter_collections_total": "Signals requests answered by an adapter, by outcome.",
        "secure_signals_adapter_circuit_open": "Whether an adapter's circuit breaker is open (1) or closed (0).",
        "secure_signals_adapter_circuit_opened_total": "Times an adapter's circuit breaker opened.",
        "secure_signals_program_up": "Whether an exec adapter's program is running and initialized (1) or not (0).",
        "secure_signals_program_restarts_total": "Restarts of an exec adapter's program.",
        "secure_signals_program_dropped_lines_total": "Lines of an exec adapter's stdout that were dropped, by reason.",
        "secure_signals_program_unmatched_replies_total":
            "Replies of an exec adapter's program that matched no request.",
        "secure_signals_program_stderr_lines_total": "Lines an exec adapter's program wrote to stderr, by outcome.",
        "secure_signals_ad_events_total": "Ad events published, by ad unit and event.",
        "secure_signals_ad_load_seconds": "Time an ad load took, waterfall and all.",
        "secure_signals_ad_loads_capped_total":
            "Ad loads refused because the unit's frequency caps or pacing allow the app no ad now.",
        "secure_signals_ads_displaced_total": "Stored ads dropped to keep the store under limits.max_stored_ads.",
        "secure_signals_ads_served_total": "Ads filled, by the serving mode the privacy state allowed their request.",
        "secure_signals_app_requests_total":
            "Requests recognized as a registered app's, by its id (unknown for others).",
        "secure_signals_ads_dropped_for_privacy_total":
            "Unused ads dropped because a privacy change reversed a decision they were loaded under.",
        "secure_signals_bids_blocked_total":
            "Bids dropped because their ad unit blocks their advertiser, category or creative attribute.",
        "secure_signals_network_requests_total":
            "Requests to an ad network, as a waterfall's line item or an auction's bidder, by outcome.",
        "secure_signals_network_request_seconds": "Time an ad network took to answer, by network and kind.",
        "secure_signals_network_bids_total": "Bids an ad network made in auctions.",
        "secure_signals_network_wins_total": "Auctions an ad network's bid won.",
        "secure_signals_network_losses_total": "An ad network's bids that lost, by OpenRTB loss reason.",
        "secure_signals_trackers_total": "Tracker pings, by kind and outcome.",
        "secure_signals_tracker_given_up_total":
            "Owed tracker pings given up unsent: past their max age, the oldest when the outbox held trackers.max_owed, or over trackers.max_url_bytes.",
        "secure_signals_http_requests_total":
            "Requests answered on the socket API, by route, method and status, once the answer is written.",
        "secure_signals_http_request_duration_seconds":
            "From a request's arrival to its answer (a stream's last byte: an event stream's whole life), by route and method.",
        "secure_signals_connections_open": "Connections open on the socket API.",
        "secure_signals_connections_closed_total": "Connections the daemon closed on a limit, by reason.",
        "secure_signals_limit_refusals_total": "Connections and streams refused over a cap, by limit.",
        "secure_signals_recipient_key_fetches_total": "Fetches of a recipient's key URL, by outcome.",
        "secure_signals_recipient_key_changes_total": "Times a fetched key set's key ids differed from the last.",
    ]

    /// `exposition` with a `# HELP` line before each family's `# TYPE` line that has none.
    static func annotate(_ exposition: String) -> String {
        var lines: [Substring] = []
        var previous: Substring = ""
        for line in exposition.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE "), let name = line.dropFirst(7).split(separator: " ").first,
                !previous.hasPrefix("# HELP \(name) "), let help = texts[String(name)]
            {
                lines.append("# HELP \(name) \(help)")
            }
            lines.append(line)
            previous = line
        }
        return lines.joined(separator: "\n")
    }
}
