import Logging
import Synchronization

/// Every record a logger writes, at every level from `trace` up, each as one line of its level,
/// message and metadata: what a test reads to know what the log says (or never says).
public final class CapturedLog: Sendable {
    private let records = Mutex<[String]>([])

    public init() {}

    /// A logger that writes here, at `level`.
    public func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "captured") { _ in Handler(sink: self) }
        logger.logLevel = level
        return logger
    }

    public var lines: [String] { records.withLock { $0 } }

    /// The whole log as one text.
    public var text: String { lines.joined(separator: "\n") }

    fileprivate func append(_ line: String) { records.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let sink: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let fields = metadata.merging(event.metadata ?? [:]) { $1 }.sorted { $0.key < $1.key }
                .map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            sink.append("\(event.level) \(event.message) \(fields) \(event.error.map { "\($0)" } ?? "")")
        }
    }
}
