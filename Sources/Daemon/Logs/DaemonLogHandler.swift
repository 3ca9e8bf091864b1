import FoundationEssentials
import Logging

/// The daemon's log handler: swift-log's stream handler for text, or one line per record with
/// its syslog priority for journald; the level is the shared `LogLevelSetting` unless a logger
/// sets its own.
struct DaemonLogHandler: LogHandler {
    let label: String
    let format: LogFormat
    let setting: LogLevelSetting
    private var text: StreamLogHandler
    private var ownLevel: Logger.Level?
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, format: LogFormat, setting: LogLevelSetting) {
        self.label = label
        self.format = format
        self.setting = setting
        text = StreamLogHandler.standardError(label: label)
        text.logLevel = .trace
    }

    var logLevel: Logger.Level {
        get { ownLevel ?? setting.level }
        set { ownLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        guard format == .journald else {
            var text = self.text
            text.metadata = metadata
            text.metadataProvider = metadataProvider
            return text.log(event: event)
        }
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let own = event.metadata { all.merge(own) { $1 } }
        let fields = all.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        StandardError.write(
            Self.journalLine(level: event.level, label: label, fields: fields, message: "\(event.message)"))
    }

    /// `<N>label:[ key=value...] message`, one line: journald takes a record per line.
    static func journalLine(level: Logger.Level, label: String, fields: String, message: String) -> String {
        let line = "\(label):\(fields) \(message)".replacing("\n", with: "\\n")
        return "<\(priority(of: level))>\(line)\n"
    }

    /// The syslog priority of a level (RFC 5424 §6.2.1): debug 7 ... critical 2.
    static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
