import Foundation
import SignalCrypto

/// Standard input and output as bytes, for payloads that need not be text.
enum StandardStreams {
    static func readAll() -> [UInt8] {
        Array(FileHandle.standardInput.readDataToEndOfFile())
    }

    static func write(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let n = Foundation.write(1, bytes.baseAddress.map { $0 + done }, bytes.count - done)
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
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
}
