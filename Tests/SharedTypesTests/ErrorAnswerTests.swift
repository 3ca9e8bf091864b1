import API
import SharedTypes
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A client reads an error answer's code and message whatever a newer daemon adds beside them.
struct ErrorAnswerTests {
    @Test func aWaterfallThisClientCannotReadLeavesTheCodeAndMessage() throws {
        let body = Data(
            #"""
            {"error": {"code": "no_fill", "message": "nothing filled"}, "retry_after_ms": 5,
             "response_info": {"attempts": [{"network": "x", "outcome": "a_new_outcome", "latency_ms": 1}]}}
            """#.utf8)
        let answer = try WireFormat.decoder().decode(APIErrorAnswer.self, from: body)
        #expect(answer.error.code == "no_fill" && answer.error.message == "nothing filled")
        #expect(answer.responseInfo == nil && answer.retryAfterMilliseconds == 5)
        #expect(throws: (any Error).self) {
            try WireFormat.decoder().decode(APIErrorAnswer.self, from: Data(#"{"response_info": {}}"#.utf8))
        }
    }
}
