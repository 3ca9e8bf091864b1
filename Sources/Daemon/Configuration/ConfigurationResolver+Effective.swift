import Adapters
import Consent
import SharedTypes

extension ConfigurationResolver {
    /// The settings as the daemon runs them: each default written out, each path absolute, each
    /// adapter's inherited deadline and breaker its own, each network a waterfall names listed.
    /// `--config` reads the result back to the same configuration, from any directory.
    func effective(socketPath: String, stateDirectory: String) -> DaemonConfiguration {
        var effective = settings
        effective.socket.path = socketPath
        effective.stateDirectory = stateDirectory
        effective.logLevel = settings.logLevel ?? "info"
        effective.ssv.signingKey = settings.ssv.signingKey.map(absolute)
        if settings.advertisingID?.program != nil {
            effective.advertisingID?.timeoutMilliseconds =
                settings.advertisingID?.timeoutMilliseconds ?? AdvertisingIDSettings.defaultTimeoutMilliseconds
        }
        for (name, recipient) in settings.recipients where !recipient.demoKey {
            effective.recipients[name]?.keyConfigs = recipient.keyConfigs.map(absolute)
            effective.recipients[name]?.caFile = recipient.caFile.map(absolute)
        }
        effective.adapters = settings.adapters.map { adapter in
            var adapter = adapter
            if let exec = adapter.exec {
                adapter.exec = absolute(exec)
                adapter.stopGraceMilliseconds =
                    adapter.stopGraceMilliseconds ?? DaemonConfiguration.AdapterSettings.defaultStopGraceMilliseconds
            } else {
                adapter.type = adapter.type ?? adapter.name
            }
            // What it needs from consent, as the daemon runs it.
            adapter.consent = ConsentSettings(consent(of: adapter))
            adapter.timeoutMilliseconds = adapter.timeoutMilliseconds ?? settings.deadlines.adapterTimeoutMilliseconds
            adapter.initTimeoutMilliseconds =
                adapter.initTimeoutMilliseconds ?? settings.deadlines.initTimeoutMilliseconds
            adapter.circuitBreaker = adapter.circuitBreaker ?? settings.circuitBreaker
            adapter.options = resolvingPaths(adapter.options)
            return adapter
        }
        for (name, network) in settings.adNetworks {
            effective.adNetworks[name]?.setup = resolvingPaths(network.setup)
        }
        for unit in settings.adUnits.values {
            for item in unit.waterfall where effective.adNetworks[item.network] == nil {
                effective.adNetworks[item.network] = AdNetworkSettings()
            }
        }
        for (id, unit) in settings.adUnits {
            effective.adUnits[id]?.waterfall = unit.waterfall.map { item in
                var item = item
                item.consent = item.consent ?? ConsentSettings(.none)
                return item
            }
        }
        return effective
    }
}
