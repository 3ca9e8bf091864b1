import Consent
import Foundation
import SecureSignals
import SharedTypes

#if canImport(Glibc)
    import Glibc
#endif

extension ConfigurationResolver {
    /// `adapters`: each a registered type (with options it takes) or a program to run, named
    /// once, sealing for recipients that are configured. Every entry is checked.
    func adapters(recipientNames: Set<String>) throws -> [AdapterConfiguration] {
        var adapters: [AdapterConfiguration] = []
        var names = Set<String>()
        for (index, adapter) in settings.adapters.enumerated() {
            let checked = try problems.collecting {
                try self.adapter(adapter, at: "adapters[\(index)]", names: &names, recipientNames: recipientNames)
            }
            if let checked { adapters.append(checked) }
        }
        return adapters
    }

    /// One entry of `adapters`.
    func adapter(
        _ adapter: DaemonConfiguration.AdapterSettings, at: String, names: inout Set<String>,
        recipientNames: Set<String>
    ) throws -> AdapterConfiguration {
        guard !adapter.name.isEmpty,
            adapter.name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        else {
            throw fail("\(at).name", "must be letters, digits, '-' or '_', not \"\(adapter.name)\"")
        }
        guard names.insert(adapter.name).inserted else {
            throw fail("\(at).name", "\"\(adapter.name)\" is used twice")
        }
        var errors: [ConfigurationError] = []
        var program: ProgramSpec?
        if let exec = adapter.exec {
            do {
                program = try self.program(exec, adapter, at: at)
            } catch let error as ConfigurationError {
                errors.append(error)
            }
        } else {
            let typeName = adapter.type ?? adapter.name
            if let type = registry.type(named: typeName) {
                errors += unknownKeys(
                    in: adapter.options, declared: type.optionKeys, at: "\(at).options", kind: "option")
            } else {
                errors.append(
                    fail(
                        adapter.type == nil ? "\(at).name" : "\(at).type",
                        "no adapter type named \"\(typeName)\" (known: \(registry.names.joined(separator: ", ")); or give \"exec\")"
                    ))
            }
        }
        for (position, recipient) in adapter.recipients.enumerated() where !recipientNames.contains(recipient) {
            errors.append(
                fail("\(at).recipients[\(position)]", "no recipient named \"\(recipient)\" in \"recipients\""))
        }
        guard errors.isEmpty else { throw ConfigurationErrors(errors: errors) }
        return AdapterConfiguration(
            name: adapter.name, type: adapter.type, program: program, recipients: adapter.recipients,
            timeout: .milliseconds(adapter.timeoutMilliseconds ?? settings.deadlines.adapterTimeoutMilliseconds),
            initTimeout: .milliseconds(adapter.initTimeoutMilliseconds ?? settings.deadlines.initTimeoutMilliseconds),
            cacheTTL: .milliseconds(adapter.cacheTTLMilliseconds), options: resolvingPaths(adapter.options),
            circuitBreaker: adapter.circuitBreaker ?? settings.circuitBreaker, consent: consent(of: adapter))
    }

    /// What `adapter` needs from consent: its `consent`, else its type's default (nothing for a
    /// program). A built-in identifier stays one whatever the file says.
    func consent(of adapter: DaemonConfiguration.AdapterSettings) -> ConsentRequirement {
        let type = adapter.exec == nil ? registry.type(named: adapter.type ?? adapter.name) : nil
        var consent = adapter.consent?.requirement ?? type?.consent ?? .none
        consent.identifier = consent.identifier || type?.consent.identifier == true
        return consent
    }

    /// An error for each key of `options` that `declared` does not list, at its path below `at`.
    func unknownKeys(in options: AdapterOptions, declared: OptionKeys, at: String, kind: String)
        -> [ConfigurationError]
    {
        declared.unknown(in: options).map { unknown in
            fail(
                "\(at).\(unknown.path)",
                unknown.known.isEmpty
                    ? "unknown \(kind); this takes none"
                    : "unknown \(kind); known: \(unknown.known.joined(separator: ", "))")
        }
    }

    /// An `exec` entry's program: resolved like every path, and executable now.
    func program(_ exec: String, _ adapter: DaemonConfiguration.AdapterSettings, at: String) throws
        -> ProgramSpec
    {
        guard registry.programLauncher != nil else { throw fail("\(at).exec", "this daemon cannot run programs") }
        let path = absolute(exec)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw fail("\(at).exec", "\(path) does not exist")
        }
        guard !isDirectory.boolValue, Glibc.access(path, X_OK) == 0 else {
            throw fail("\(at).exec", "\(path) is not an executable file")
        }
        return ProgramSpec(
            executable: path, arguments: adapter.args, environment: adapter.env,
            stopGrace: .milliseconds(
                adapter.stopGraceMilliseconds ?? DaemonConfiguration.AdapterSettings.defaultStopGraceMilliseconds))
    }

    /// Options named `path`, `directory` or ending in `_path`, at any depth, are paths: relative
    /// ones resolve like the file's own.
    func resolvingPaths(_ options: AdapterOptions) -> AdapterOptions {
        AdapterOptions(options.values.mapValues { resolvingPaths($0) }.merging(pathsOnly(options.values)) { $1 })
    }

    private func pathsOnly(_ values: [String: JSONValue]) -> [String: JSONValue] {
        values.filter { key, _ in key == "path" || key == "directory" || key.hasSuffix("_path") }
            .mapValues { value in
                guard case .string(let path) = value else { return value }
                return .string(absolute(path))
            }
    }

    private func resolvingPaths(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members): .object(members.mapValues { resolvingPaths($0) }.merging(pathsOnly(members)) { $1 })
        case .array(let items): .array(items.map { resolvingPaths($0) })
        default: value
        }
    }
}
