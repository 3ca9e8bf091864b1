import Adapters
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

extension ConfigurationResolver {
    /// `advertising_id`: its shape is checked as it is read; a program must be there and
    /// executable now, as an exec adapter's must, and its `timeout_ms` is written out. A file may
    /// appear later (the platform writes it): until then, no id is sent.
    func advertisingID() throws -> AdvertisingIDSettings? {
        guard var settings = settings.advertisingID else { return nil }
        if let executable = settings.program?.first {
            settings.timeoutMilliseconds =
                settings.timeoutMilliseconds ?? AdvertisingIDSettings.defaultTimeoutMilliseconds
            var isDirectory = false
            guard FileManager.default.fileExists(atPath: executable, isDirectory: &isDirectory) else {
                throw fail("advertising_id.program", "\(executable) does not exist")
            }
            guard !isDirectory, Glibc.access(executable, X_OK) == 0 else {
                throw fail("advertising_id.program", "\(executable) is not an executable file")
            }
        }
        return settings
    }
}
