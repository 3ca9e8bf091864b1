import Mediation

extension ConfigurationResolver {
    /// `limits`: each cap as written (the file model checked its range), `max_connections`
    /// within what the process's hard open-file limit allows beside the descriptors it keeps.
    func limits() throws -> Limits {
        let limits = settings.limits
        if let hard = OpenFileLimit.hard, limits.maxConnections > hard - Limits.descriptorsKept {
            throw fail(
                "limits.max_connections",
                "\(limits.maxConnections) is more than this process's open-file limit allows: its hard limit is "
                    + "\(hard) (RLIMIT_NOFILE; LimitNOFILE= in a systemd unit), of which \(Limits.descriptorsKept) "
                    + "are kept for the daemon's own files; set it at most \(max(0, hard - Limits.descriptorsKept)) "
                    + "or raise the limit")
        }
        return Limits(
            maxConnections: limits.maxConnections, maxConnectionsPerPeer: limits.maxConnectionsPerPeer,
            idleTimeout: .milliseconds(limits.idleTimeoutMilliseconds),
            readTimeout: .milliseconds(limits.readTimeoutMilliseconds), maxEventStreams: limits.maxEventStreams,
            maxEventStreamsPerPeer: limits.maxEventStreamsPerPeer,
            eventStreamBuffer: limits.eventStreamBuffer, maxRequestsInFlightPerPeer: limits.maxRequestsInFlightPerPeer,
            maxStoredAds: limits.maxStoredAds,
            content: AdContentLimits(
                maximumDocumentDepth: limits.maxDocumentDepth, maximumTextBytes: limits.maxTextBytes,
                maximumURLBytes: limits.maxURLBytes, maximumAdBytes: limits.maxAdBytes,
                maximumStoredAdBytes: limits.maxStoredAdBytes))
    }
}
