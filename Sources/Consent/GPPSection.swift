/// One section of a GPP string: its id, its API name and its fields under the GPP
/// specification's names. A section this daemon does not know is kept undecoded (no name, no
/// fields) and ignored for decisions.
public struct GPPSection: Sendable, Equatable {
    public var id: Int
    /// `tcfeuv2`, `usnat` ...; nil for an id this daemon does not decode.
    public var name: String?
    public var fields: [ConsentField]
    /// The TC string of a `tcfeuv2` section, for decisions.
    public var tcf: TCString?
    /// The US Privacy string of a `uspv1` section.
    public var usPrivacy: USPrivacyString?

    /// The API names of the sections this daemon decodes, by id.
    public static let names: [Int: String] = [
        2: "tcfeuv2", 5: "tcfcav1", 6: "uspv1", 7: "usnat", 8: "usca", 9: "usva", 10: "usco", 11: "usut", 12: "usct",
        13: "usfl", 14: "usmt", 15: "usor", 16: "ustx", 17: "usde", 18: "usia", 19: "usne", 20: "usnh", 21: "usnj",
        22: "ustn", 23: "usmn", 24: "usmd", 25: "usin", 26: "usky", 27: "usri",
    ]

    /// The ids of the US sections: usnat (7) and the states (8-27).
    public static let usSections = 7...27

    /// Whether it is one of the US sections (national or state).
    public var isUS: Bool { Self.usSections.contains(id) }

    static func decode(id: Int, _ text: Substring) throws(ConsentStringError) -> GPPSection {
        guard let name = names[id] else { return GPPSection(id: id, name: nil, fields: []) }
        switch id {
        case 2:
            let tcf: TCString
            do {
                tcf = try TCString.decode(String(text))
            } catch {
                throw ConsentStringError(
                    .gpp, section: name, [error.section, error.reason].compactMap { $0 }.joined(separator: ": "))
            }
            return GPPSection(id: id, name: name, fields: tcf.gppFields, tcf: tcf)
        case 6:
            let usp = try USPrivacyString.decode(text, source: .gpp)
            return GPPSection(id: id, name: name, fields: usp.fields, usPrivacy: usp)
        default:
            do throws(BitsError) {
                let fields = id == 5 ? try TCFCanadaLayout.decode(text) : try USSection.decode(id: id, text)
                return GPPSection(id: id, name: name, fields: fields)
            } catch {
                throw ConsentStringError(.gpp, section: name, error.reason)
            }
        }
    }
}
