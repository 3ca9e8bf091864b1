/// What `body` threw, as an `E`; nil when it threw nothing, or something else.
public func thrown<E: Error>(_ body: () async throws -> Void) async -> E? {
    do {
        try await body()
        return nil
    } catch {
        return error as? E
    }
}
