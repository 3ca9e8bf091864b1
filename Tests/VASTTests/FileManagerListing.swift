import Foundation

/// The `.xml` files under a directory, as paths relative to it, sorted.
enum FileManagerListing {
    static func xmlFiles(under directory: URL) throws -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        var files: [String] = []
        for case let path as String in enumerator where path.hasSuffix(".xml") {
            files.append(path)
        }
        return files.sorted()
    }
}
