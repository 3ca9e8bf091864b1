import SharedTypes

/// `advertising_id` in the configuration: where the device's advertising id comes from, a file
/// the platform keeps (`file`) or a program that prints it (`program`), exactly one. What either
/// holds is Firebolt's `{"ifa", "ifa_type", "lmt"}` as JSON, or a bare id on one line
/// (`AdvertisingIDReading`). Absent: no advertising id is ever sent.
@Settings
public struct AdvertisingIDSettings: Codable, Sendable, Equatable {
    /// The platform's file, absolute (`/run/platform/advertising-id.json`).
    public var file: String?
    /// The platform's program and its arguments, the first an absolute path
    /// (`["/usr/lib/platform/ifa", "--json"]`): its standard output is read.
    public var program: [String]?
    /// The id's type when what is read does not say (the IAB's `ifa_type`).
    public var type = IFAType.dpid
    /// How long a reading is used before the source is read again (0: at every load).
    @WireName("refresh_ms") @Bounds(0...86_400_000) public var refreshMilliseconds = 60_000
    /// How long the program may run (`program` only; 1000 when not set).
    @WireName("timeout_ms") @Bounds(1...60_000) public var timeoutMilliseconds: Int?

    /// A program's `timeout_ms` when not set.
    public static let defaultTimeoutMilliseconds = 1000

    public init() {}

    public init(file: String, type: IFAType = .dpid, refreshMilliseconds: Int = 60_000) {
        self.file = file
        self.type = type
        self.refreshMilliseconds = refreshMilliseconds
    }

    public init(
        program: [String], type: IFAType = .dpid, refreshMilliseconds: Int = 60_000,
        timeoutMilliseconds: Int? = nil
    ) {
        self.program = program
        self.type = type
        self.refreshMilliseconds = refreshMilliseconds
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    public func validate(at codingPath: [any CodingKey]) throws {
        switch (file, program) {
        case (.some, .some):
            throw StrictJSON.Failure(
                at: codingPath, CodingKeys.program, "give \"file\" or \"program\", not both: the id has one source")
        case (.none, .none):
            throw StrictJSON.Failure(at: codingPath, "needs \"file\" or \"program\": where the id is read")
        case (.some(let file), .none):
            guard file.hasPrefix("/") else {
                throw StrictJSON.Failure(
                    at: codingPath, CodingKeys.file, "must be an absolute path (the platform's file), not \"\(file)\"")
            }
            if timeoutMilliseconds != nil {
                throw StrictJSON.Failure(
                    at: codingPath, CodingKeys.timeoutMilliseconds, "only applies with \"program\"")
            }
        case (.none, .some(let program)):
            guard let executable = program.first, executable.hasPrefix("/") else {
                throw StrictJSON.Failure(
                    at: codingPath, CodingKeys.program,
                    "must start with the program's absolute path, not \(program.first.map { "\"\($0)\"" } ?? "nothing")"
                )
            }
        }
    }
}
