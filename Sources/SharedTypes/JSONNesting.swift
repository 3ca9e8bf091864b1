/// How deeply a JSON text nests its arrays and objects, found by one pass over its bytes before
/// any decoder sees them: a remote server's answer is refused past a bound instead of being
/// handed to code whose recursion the text would control. Not a parser: it only counts the
/// brackets outside strings; the decoder still judges the text.
public enum JSONNesting {
    /// Remote documents nested deeper than this are refused unless the configuration says
    /// otherwise (`limits.max_document_depth`): far above any real bid response or native ad.
    public static let defaultMaximumDepth = 256

    /// Whether `bytes` nest arrays and objects at most `maximumDepth` deep.
    public static func isWithin(_ maximumDepth: Int, _ bytes: some Sequence<UInt8>) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maximumDepth { return false }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return true
    }
}
