import Foundation
import SignalCrypto

/// Files under Tests/Fixtures, found from this source file so tests need no working directory.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(path))
    }
}

extension Array where Element == UInt8 {
    /// Test vectors' hex; a malformed one is a broken fixture.
    init(hex: String) {
        guard let bytes = [UInt8](hexString: hex) else { fatalError("bad hex in a fixture: \(hex)") }
        self = bytes
    }

    var hex: String { hexString }
}
