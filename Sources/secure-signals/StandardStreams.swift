import FoundationEssentials
import Glibc
import SignalCrypto

/// Standard input and output as bytes, for payloads that need not be text.
enum StandardStreams {
    static func readAll() throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else {
                throw CommandFailure("cannot read standard input: \(String(cString: strerror(errno)))")
            }
            guard n > 0 else { return bytes }
            bytes += chunk[..<n]
        }
    }

    static func write(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(1, bytes.baseAddress.map { $0 + done }, bytes.count - done)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                throw CommandFailure("cannot write to standard output: \(String(cString: strerror(errno)))")
            }
            done += n
        }
    }
}

/// A one-line failure message for the user.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Writes `error` to standard error the way the argument parser writes a command's failure,
/// for commands that choose their own exit status.
func printError(_ error: any Error) {
    var line = Array("Error: \(error)\n".utf8)
    _ = line.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
}

/// Writes `note` as a line on standard error: what the user should know, not the output.
func printNote(_ note: String) {
    var line = Array("\(note)\n".utf8)
    _ = line.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
}
