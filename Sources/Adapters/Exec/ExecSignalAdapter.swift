import FoundationEssentials
import SecureSignals
import SharedTypes

#if canImport(Glibc)
    import Glibc
#endif

/// An adapter that is a separate program, in any language, speaking newline-delimited JSON on
/// its stdin and stdout (docs/exec-adapters.md). The daemon starts it once, supervises it, and
/// keeps every fault of it (a crash, a hang, garbage) to this adapter.
public final class ExecSignalAdapter: SignalSource {
    private let supervisor: ProgramSupervisor

    /// Starts and initializes the program of an `exec` entry: the registry's program launcher.
    public static let launcher: ProgramLauncher = { spec, context in
        try await ExecSignalAdapter(spec: spec, context: context)
    }

    private init(spec: ProgramSpec, context: AdapterContext) async throws(SignalError) {
        // A write to a program that just exited must fail with EPIPE, not kill the daemon.
        // Programs start with default signal dispositions again.
        signal(SIGPIPE, SIG_IGN)
        supervisor = ProgramSupervisor(spec: spec, context: context)
        _ = try await supervisor.start()
    }

    private var versions: ProgramRun.Versions? { supervisor.live.state.withLock { $0.versions } }

    /// Per app: the program gets the asking app, so its answer may differ from one app to another.
    public var scope: SignalScope { .app }

    public var adapterVersion: SemanticVersion { versions?.adapter ?? SemanticVersion(0, 0, 0) }
    public var sdkVersion: SemanticVersion { versions?.sdk ?? SemanticVersion(0, 0, 0) }

    public func collectSignals(for request: SignalRequest) async throws -> Signal {
        guard let connection = supervisor.live.state.withLock({ $0.connection }) else {
            throw await supervisor.unavailable()
        }
        let result: ExecMessage.ResultBody
        do {
            result = try await connection.call(
                "collect",
                ExecMessage.CollectParams(requestID: request.requestID, privacy: request.privacy, app: request.app))
        } catch let error as ProgramReportedError {
            throw ExecMessage.error(error.body, allowed: ExecMessage.collectCodes, fallback: .collectionFailed)
        }
        switch (result.signal, result.sealed) {
        case (let signal?, nil):
            guard let bytes = Data(base64Encoded: signal) else {
                throw SignalError(.collectionFailed, "the program's signal is not base64")
            }
            return .plaintext(Array(bytes))
        case (nil, let sealed?):
            return .sealed(sealed)
        default:
            throw SignalError(.collectionFailed, "a collect result needs exactly one of 'signal' and 'sealed'")
        }
    }

    public func programStatus() async -> ProgramStatus? {
        await supervisor.status()
    }

    public func shutdown() async {
        await supervisor.stop()
    }
}
