import SharedTypes

/// A network's setup and line item options, decoded by its types once, when the configuration
/// is read, and handed back typed where the registry holds every network type-erased.
extension AdNetworkAdapter {
    /// `json` decoded as its setup, as the configuration decodes it: every failure named by its
    /// key path below `path`.
    public static func decodeSetup(_ json: [String: JSONValue], at path: String = "setup")
        throws(StrictJSON.Failures) -> DecodedOptions
    {
        try DecodedOptions.decoding(Setup.self, from: json, at: path)
    }

    /// `json` decoded as a line item's options, as the configuration decodes them.
    public static func decodeLineItemOptions(_ json: [String: JSONValue], at path: String = "options")
        throws(StrictJSON.Failures) -> DecodedOptions
    {
        try DecodedOptions.decoding(LineItemOptions.self, from: json, at: path)
    }

    /// Set up with `setup` as its type decoded it (its defaults when nil): how a network host
    /// makes it.
    public static func make(setup: DecodedOptions?, context: AdNetworkContext) async throws -> Self {
        try await Self(setup: DecodedOptions.settingUp(setup, as: Setup.self, at: "setup"), context: context)
    }

    /// What is wrong with `item` (its options and `setup` as this network decoded them), for the
    /// resolver, which holds networks type-erased.
    public static func problem(
        with item: LineItem, setup: DecodedOptions?, format: AdFormat, currency: String,
        signalAdapters: Set<String>
    ) -> String? {
        do {
            return problem(
                with: item, options: try DecodedOptions.typed(item.options, as: LineItemOptions.self, at: "options"),
                setup: try DecodedOptions.typed(setup, as: Setup.self, at: "setup"), format: format,
                currency: currency, signalAdapters: signalAdapters)
        } catch {
            return error.description
        }
    }

    /// The options of the line item `request` loads for, as this network decoded them with the
    /// configuration; its defaults for a request that carries none.
    public func lineItemOptions(of request: NetworkAdRequest) throws(AdLoadError) -> LineItemOptions {
        do {
            return try DecodedOptions.typed(request.options, as: LineItemOptions.self, at: "options")
        } catch {
            throw AdLoadError(.invalidRequest, error.description)
        }
    }
}
