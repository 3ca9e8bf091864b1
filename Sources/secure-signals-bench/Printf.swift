#if canImport(Glibc)
    import Glibc
#endif

/// `arguments` formatted as printf(3) formats them (`%8.1f`, `%6d`): the benchmarks' tables,
/// as Foundation's `String(format:)` wrote them, without Foundation. Strings are interpolated
/// by the caller (there is no `%@`).
func printf(_ format: String, _ arguments: any CVarArg...) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    let needed = Int(withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) })
    if needed >= buffer.count {
        buffer = [CChar](repeating: 0, count: needed + 1)
        _ = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
    }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
