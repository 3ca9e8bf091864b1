/// Options decoded by the type that takes them (a built-in adapter's `options`, a network's
/// `setup`, a line item's `options`), held type-erased so that registries of every kind can
/// carry them; that type reads them back as its own with `typed(_:as:at:)`.
public struct DecodedOptions: Sendable, Equatable {
    private let value: any Sendable
    private let equals: @Sendable (any Sendable) -> Bool

    public init<Options: Sendable & Equatable>(_ value: Options) {
        self.value = value
        equals = { ($0 as? Options) == value }
    }

    public static func == (lhs: DecodedOptions, rhs: DecodedOptions) -> Bool { lhs.equals(rhs.value) }

    /// `json` decoded as `Options`, as the configuration decodes it: every failure named by its
    /// key path below `path`.
    public static func decoding<Options: Decodable & Sendable & Equatable>(
        _ type: Options.Type, from json: [String: JSONValue], at path: String
    ) throws(StrictJSON.Failures) -> DecodedOptions {
        DecodedOptions(try StrictJSON.decode(type, from: .object(json), at: path))
    }

    /// `options` as `Options`; its defaults when there are none (decoded from `{}`, which fails
    /// for a type with a required option).
    public static func typed<Options: Decodable & Sendable & Equatable>(
        _ options: DecodedOptions?, as type: Options.Type, at path: String
    ) throws(StrictJSON.Failures) -> Options {
        guard let options else { return try StrictJSON.decode(type, from: .object([:]), at: path) }
        guard let typed = options.value as? Options else {
            throw StrictJSON.Failures(all: [.init(path: path, reason: "were decoded for another type than \(type)")])
        }
        return typed
    }

    /// `typed(_:as:at:)` for what an adapter or a network is set up with: options it cannot
    /// take fail its setup (`adapter_init_failed`).
    public static func settingUp<Options: Decodable & Sendable & Equatable>(
        _ options: DecodedOptions?, as type: Options.Type, at path: String
    ) throws(SignalError) -> Options {
        do {
            return try typed(options, as: type, at: path)
        } catch {
            throw SignalError(.adapterInitFailed, error.description)
        }
    }
}
