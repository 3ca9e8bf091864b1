import FoundationEssentials

/// The device's locale, read from the environment the way the C library picks the locale of
/// its messages rather than through Foundation's `Locale` (which needs ICU): the first of
/// `LC_ALL`, `LC_MESSAGES` and `LANG` that is set and not empty, given as it is
/// (`de_DE.UTF-8`), else `C`.
enum LocalLocale {
    static func identifier(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[name], !value.isEmpty { return value }
        }
        return "C"
    }
}
