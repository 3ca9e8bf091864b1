import SharedTypes

extension AppIdentity {
    /// A test's app of `id` that may ask for signals, of `publisher` when one is given.
    public static func signalsApp(_ id: String, publisher: String? = nil) -> AppIdentity {
        var description = AppDescription()
        if let publisher {
            var owner = AppPublisher()
            owner.id = publisher
            description.publisher = owner
        }
        return AppIdentity(id: id, capabilities: [.signals], description: description)
    }
}
