import FoundationEssentials
import SharedTypes

/// What an advertising id source holds, read: Firebolt's `Advertising.advertisingId()` answer as
/// JSON, `{"ifa": "...", "ifa_type": "dpid", "lmt": 0}` (`ifa_type` one of the IAB's names, else
/// the configured type; `lmt` 0 or 1, a boolean, or "0" or "1"; other keys ignored), or a bare
/// id on one line (of the configured type, tracking not limited). An id of zeros is limited
/// whatever `lmt` says. A failure says what is wrong, never what was read: it is logged.
enum AdvertisingIDReading {
    /// What is read of a file or a program's output, at most; more is a failure.
    static let byteLimit = 4096
    /// The longest id taken (a UUID is 36 characters).
    static let idLimit = 128

    struct Failure: Error, Equatable {
        var reason: String
    }

    static func parse(_ bytes: [UInt8], type: IFAType) throws(Failure) -> AdvertisingID {
        guard bytes.count <= byteLimit else { throw Failure(reason: "it holds more than \(byteLimit) bytes") }
        let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace
        guard !text.isEmpty else { throw Failure(reason: "it is empty") }
        var id: AdvertisingID
        if text.hasPrefix("{") {
            let answer: Answer
            do {
                answer = try JSONDecoder().decode(Answer.self, from: Data(text.utf8))
            } catch {
                throw Failure(reason: "it is not a JSON object with a string \"ifa\" (and \"ifa_type\", \"lmt\")")
            }
            id = AdvertisingID(
                ifa: answer.ifa, type: answer.ifaType.flatMap(IFAType.init(rawValue:)) ?? type,
                limitAdTracking: answer.lmt?.value ?? false)
        } else {
            id = AdvertisingID(ifa: text, type: type, limitAdTracking: false)
        }
        guard (1...idLimit).contains(id.ifa.utf8.count),
            id.ifa.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F })
        else {
            throw Failure(reason: "its id is not 1 to \(idLimit) printable ASCII characters on one line")
        }
        if id.ifa.allSatisfy({ $0 == "0" || $0 == "-" }) { id.limitAdTracking = true }
        return id
    }

    /// Firebolt's answer.
    private struct Answer: Decodable {
        var ifa: String
        var ifaType: String?
        var lmt: Flag?

        enum CodingKeys: String, CodingKey {
            case ifa, lmt
            case ifaType = "ifa_type"
        }
    }

    /// `lmt` as platforms write it: 0 or 1, a boolean, or "0" or "1" (Firebolt's).
    private struct Flag: Decodable {
        var value: Bool

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) {
                value = flag
            } else if let number = try? container.decode(Int.self), number == 0 || number == 1 {
                value = number == 1
            } else if let text = try? container.decode(String.self), text == "0" || text == "1" {
                value = text == "1"
            } else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "lmt is 0 or 1")
            }
        }
    }
}
