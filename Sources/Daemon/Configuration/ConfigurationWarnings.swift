import SignalCrypto

extension ResolvedConfiguration {
    /// What is allowed but should not reach production, one sentence each: logged at start and
    /// at a reload, and shown by `GET /v1/health`.
    public var warnings: [String] {
        let demo = try? DemoKey.keyConfig().publicKey
        return collector.recipients.values
            .filter { $0.keys.files?.sealer.keyConfig.publicKey == demo }
            .map(\.name).sorted()
            .map {
                "recipient \($0) seals for the public demo key (keys/demo): anyone can open its signals; not for production"
            } + limits.warnings
    }
}
