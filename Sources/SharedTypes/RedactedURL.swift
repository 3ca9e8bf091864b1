import FoundationEssentials

/// A URL as logs and error messages may show it: scheme, host, port and path, without the
/// query, fragment or user info, where ad servers put ids, prices and tokens.
public func redactedURL(_ url: String) -> String {
    guard var components = URLComponents(string: url), components.host != nil else {
        return url.split(whereSeparator: { $0 == "?" || $0 == "#" }).first.map(String.init) ?? ""
    }
    components.query = nil
    components.fragment = nil
    components.user = nil
    components.password = nil
    return components.string ?? ""
}
