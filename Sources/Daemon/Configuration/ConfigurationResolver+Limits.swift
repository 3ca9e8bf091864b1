import Mediation

extension ConfigurationResolver {
    /// `limits`: each cap as written (the file model checked its range).
    func limits() -> Limits {
        let limits = settings.limits
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
