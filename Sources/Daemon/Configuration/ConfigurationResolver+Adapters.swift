import Consent
import FoundationEssentials
import SecureSignals
import SharedTypes

#if canImport(Glibc)
    import Glibc
#endif

extension ConfigurationResolver {
    /// `adapters`: each a registered type (its options decoded by it) or a program to run, named
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
        var options: DecodedOptions?
        if let exec = adapter.exec {
            do {
                program = try self.program(exec, adapter, at: at)
            } catch let error as ConfigurationError {
                errors.append(error)
            }
        } else {
            let typeName = adapter.type ?? adapter.name
            if let type = registry.type(named: typeName) {
                do {
                    options = try decoding(adapter.options, at: "\(at).options") {
                        json, path throws(StrictJSON.Failures) in
                        try type.decodeOptions(json, at: path)
                    }
                } catch {
                    errors += error.errors
                }
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
            cacheTTL: .milliseconds(adapter.cacheTTLMilliseconds), options: options,
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

    /// An `exec` entry's program: resolved like every path, and executable now.
    func program(_ exec: String, _ adapter: DaemonConfiguration.AdapterSettings, at: String) throws
        -> ProgramSpec
    {
        guard registry.programLauncher != nil else { throw fail("\(at).exec", "this daemon cannot run programs") }
        let path = absolute(exec)
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw fail("\(at).exec", "\(path) does not exist")
        }
        guard !isDirectory, Glibc.access(path, X_OK) == 0 else {
            throw fail("\(at).exec", "\(path) is not an executable file")
        }
        return ProgramSpec(
            executable: path, arguments: adapter.args, environment: adapter.env,
            stopGrace: .milliseconds(
                adapter.stopGraceMilliseconds ?? DaemonConfiguration.AdapterSettings.defaultStopGraceMilliseconds),
            options: resolvingPaths(adapter.options))
    }

    /// `options` with the paths they name made absolute (`ConfigurationPaths.resolving`).
    func resolvingPaths(_ options: [String: JSONValue]) -> [String: JSONValue] {
        ConfigurationPaths.resolving(options, in: directory)
    }

    /// What `decode` (a built-in's type) makes of `options`, their paths made absolute first:
    /// decoded once, as the configuration is read. Each failure names its key path below `at`.
    func decoding(
        _ options: [String: JSONValue], at: String,
        by decode: ([String: JSONValue], String) throws(StrictJSON.Failures) -> DecodedOptions
    ) throws(ConfigurationErrors) -> DecodedOptions {
        do {
            return try decode(resolvingPaths(options), at)
        } catch {
            throw ConfigurationErrors(errors: error.all.map { fail($0.path, $0.reason) })
        }
    }
}
