#if canImport(Glibc)
    import Glibc
#endif

/// Who may use the socket: the daemon's own uid, root, the socket's group, and the allowlists.
public struct AccessPolicy: Sendable {
    public var ownUID: uid_t
    public var socketGroup: gid_t?
    public var allowedUIDs: Set<UInt32>
    public var allowedGIDs: Set<UInt32>
    /// The apps a peer that may connect can be (`apps`).
    public var apps: AppRegistry

    /// Whether `peer` may connect: by uid, or by its primary gid or a group its user is a member of.
    public func allows(_ peer: PeerCredentials) -> Bool {
        if peer.uid == 0 || peer.uid == ownUID || allowedUIDs.contains(peer.uid) { return true }
        return ([peer.gid] + peer.groups).contains { $0 == socketGroup || allowedGIDs.contains($0) }
    }
}
