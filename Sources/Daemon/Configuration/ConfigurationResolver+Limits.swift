import Mediation

#if canImport(Glibc)
    import Glibc
#endif

extension ConfigurationResolver {
    /// `limits`: each cap as written (the file model checked its range), `max_connections`
    /// within what the process's open-file limit allows beside the descriptors it keeps.
    func limits() throws -> Limits {
        let limits = settings.limits
        var files = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &files) == 0, files.rlim_cur != rlim_t.max {
            let allowed = Int(files.rlim_cur) - Limits.descriptorsKept
            if limits.maxConnections > allowed {
                throw fail(
                    "limits.max_connections",
                    "\(limits.maxConnections) is more than this process's open-file limit allows: it is "
                        + "\(files.rlim_cur) (RLIMIT_NOFILE; LimitNOFILE= in a systemd unit), of which "
                        + "\(Limits.descriptorsKept) are kept for the daemon's own files; set it at most \(max(0, allowed)) "
                        + "or raise the limit")
            }
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
