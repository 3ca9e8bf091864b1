import Logging
import Synchronization

/// The daemon's log level, shared by every logger: set at start (flag, then configuration) and
/// again at a reload.
public final class LogLevelSetting: Sendable {
    private let current: Mutex<Logger.Level>

    public init(_ level: Logger.Level) {
        current = Mutex(level)
    }

    public var level: Logger.Level {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}
