/// The options of what takes none: any key is refused, with its key path.
public struct NoOptions: Decodable, Sendable, Equatable {
    public init() {}

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(NoKeys.self)
    }

    private enum NoKeys: CodingKey, CaseIterable {}
}
