import TestSupport
import Testing

/// Every route's answer, byte for byte, against the transcripts in `Tests/Fixtures/golden`,
/// through the daemon built in-process (`GoldenScenario`; the end-to-end tests run it through
/// the socket too).
@Suite struct GoldenAnswerTests {
    @Test func everyRouteAnswersAsItsTranscriptSays() async throws {
        let daemon = try await InProcessDaemon(config: GoldenTranscripts.configuration, testbed: true)
        try await daemon.run { client in try await GoldenScenario.run(with: client) }
    }
}
