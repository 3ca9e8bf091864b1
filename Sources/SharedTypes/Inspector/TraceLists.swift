/// `GET /v1/inspect/loads`: the traces kept, newest first.
@WireKeys
@MemberwiseInit
public struct LoadTraceList: Sendable, Codable, Equatable {
    public var loads: [LoadTrace]
}

/// `GET /v1/inspect/signals`: the traces kept, newest first.
@WireKeys
@MemberwiseInit
public struct SignalsTraceList: Sendable, Codable, Equatable {
    public var signals: [SignalsTrace]
}
