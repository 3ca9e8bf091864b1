import Testing

@testable import Adapters

/// How adapter programs' output is cut into lines: whatever the chunking, lines come out whole,
/// and a line over the limit is dropped without being held.
struct LineFramerTests {
    func pieces(_ chunks: [String], limit: Int = 8) -> [LineFramer.Piece] {
        var framer = LineFramer(limit: limit)
        var pieces: [LineFramer.Piece] = []
        for chunk in chunks {
            pieces += Array(chunk.utf8).withUnsafeBytes { framer.append($0) }
        }
        return pieces + framer.finish()
    }

    @Test func linesSplitAcrossChunksComeOutWhole() {
        #expect(
            pieces(["ab", "c\nde\r\n", "f"]) == [
                .line(Array("abc".utf8)), .line(Array("de".utf8)), .line([UInt8(ascii: "f")]),
            ])
        #expect(pieces(["\n\n"]) == [.line([]), .line([])])
    }

    @Test func aLineOverTheLimitIsDroppedAndTheNextOneKept() {
        #expect(pieces(["12345", "67890", "12\nok\n"]) == [.tooLong(12), .line(Array("ok".utf8))])
        #expect(pieces(["123456789"]) == [.tooLong(9)], "an unterminated long line at the end")
        #expect(pieces(["12345678\n"]) == [.line(Array("12345678".utf8))], "exactly the limit is kept")
    }
}
