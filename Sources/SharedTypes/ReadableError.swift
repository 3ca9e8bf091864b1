import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

extension Error {
    /// What a person reads of this error, as Foundation's `localizedDescription` would say it
    /// without its internationalization layer: a file operation's system error as strerror(3)
    /// words it ("No such file or directory"), else the error's own description.
    public var readableDescription: String {
        if let posix = self as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        if let cocoa = self as? CocoaError {
            if let posix = cocoa.underlying as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
            return "error \(cocoa.code.rawValue)"
        }
        return "\(self)"
    }
}
