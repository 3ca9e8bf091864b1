import FoundationEssentials
import SharedTypes

/// Paths in the configuration file: a relative one resolves against the file's directory.
enum ConfigurationPaths {
    /// `path`, absolute: a relative one resolves against `directory`.
    static func absolute(_ path: String, in directory: URL) -> String {
        path.hasPrefix("/") ? path : directory.appendingPathComponent(path).standardizedFileURL.path
    }

    /// `options` with the values of keys named `path`, `directory` or ending in `_path`, at any
    /// depth, made absolute: how a built-in's or a program's options name a file.
    static func resolving(_ options: [String: JSONValue], in directory: URL) -> [String: JSONValue] {
        options.mapValues { resolving($0, in: directory) }.merging(pathsOnly(options, in: directory)) { $1 }
    }

    private static func pathsOnly(_ values: [String: JSONValue], in directory: URL) -> [String: JSONValue] {
        values.filter { key, _ in key == "path" || key == "directory" || key.hasSuffix("_path") }
            .mapValues { value in
                guard case .string(let path) = value else { return value }
                return .string(absolute(path, in: directory))
            }
    }

    private static func resolving(_ value: JSONValue, in directory: URL) -> JSONValue {
        switch value {
        case .object(let members): .object(resolving(members, in: directory))
        case .array(let items): .array(items.map { resolving($0, in: directory) })
        default: value
        }
    }
}
