import SignalCrypto

/// The public key configuration of `keys/demo`, built in so the default works from any directory.
enum DemoKey {
    static let hex =
        "010020ce05b2c014fcb2859f0404b4d1ef6717b15fdbaa09533287cd6f1172412aff74000c000100010001000200010003"

    static func keyConfig() throws -> KeyConfig {
        try KeyConfig(decoding: [UInt8](hexString: hex) ?? [])
    }
}
