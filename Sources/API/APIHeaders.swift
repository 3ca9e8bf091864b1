/// The headers of the socket API that are its own.
public enum APIHeaders {
    /// The app a broker's request is for (a runtime hosting several apps in one process).
    public static let app = "Secure-Signals-App"
}
