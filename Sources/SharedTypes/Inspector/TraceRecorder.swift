/// Where the signal collector and the ad store leave a trace of each request they answer (the
/// daemon's inspector); each call returns at once, and never fails the request.
public protocol TraceRecorder: Sendable {
    /// Keeps `trace`, giving it its id; `notices` fills its `notices` whenever it is read, so
    /// that notices sent after the load show.
    func record(_ trace: LoadTrace, notices: NoticeLog?)
    /// Keeps `trace`, giving it its id.
    func record(_ trace: SignalsTrace)
    /// Whether a trace would be kept (`inspect.max_traces` above 0): when not, none is built.
    var isRecording: Bool { get }
}
