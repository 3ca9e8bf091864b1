/// The IAB US Privacy string (CCPA), e.g. `1YNN`: version 1, then notice given, opted out of
/// sale, and covered by the LSPA, each `Y`, `N` or `-` (not applicable).
public struct USPrivacyString: Sendable, Equatable {
    public enum Answer: Character, Sendable {
        case yes = "Y"
        case no = "N"
        case notApplicable = "-"
    }

    public var version: Int
    public var notice: Answer
    public var optOutSale: Answer
    public var lspaCovered: Answer

    /// Decodes `text`; `source` names the string in an error (`us_privacy`, or `gpp` for its
    /// uspv1 section).
    public static func decode(_ text: some StringProtocol, source: ConsentStringError.Source = .usPrivacy)
        throws(ConsentStringError) -> USPrivacyString
    {
        let section = source == .gpp ? "uspv1" : nil
        let characters = Array(text)
        guard characters.count == 4 else {
            throw ConsentStringError(source, section: section, "has \(characters.count) characters, needs 4")
        }
        guard characters[0] == "1" else {
            throw ConsentStringError(source, section: section, "must begin with its version, 1")
        }
        var answers: [Answer] = []
        for (name, character) in zip(["notice", "opt-out-sale", "LSPA"], characters.dropFirst()) {
            guard let answer = Answer(rawValue: character) else {
                throw ConsentStringError(source, section: section, "\(name) must be Y, N or -")
            }
            answers.append(answer)
        }
        return USPrivacyString(version: 1, notice: answers[0], optOutSale: answers[1], lspaCovered: answers[2])
    }

    /// The fields under GPP's names (section uspv1).
    public var fields: [ConsentField] {
        [
            ConsentField("Version", .int(version)), ConsentField("Notice", .string(String(notice.rawValue))),
            ConsentField("OptOutSale", .string(String(optOutSale.rawValue))),
            ConsentField("LspaCovered", .string(String(lspaCovered.rawValue))),
        ]
    }
}
