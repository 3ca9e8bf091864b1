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
    ]

    /// Whether it is one of the US sections (national or state).
    public var isUS: Bool { (7...12).contains(id) }

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
                let fields = id == 5 ? try TCFCanadaLayout.decode(text) : try decodeUS(id: id, text)
                return GPPSection(id: id, name: name, fields: fields)
            } catch {
                throw ConsentStringError(.gpp, section: name, error.reason)
            }
        }
    }

    /// A US section: the core's fields by its version's layout, then `Gpc` from a GPC
    /// sub-section when the section has one.
    private static func decodeUS(id: Int, _ text: Substring) throws(BitsError) -> [ConsentField] {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        var bits = try Bits(base64url: parts[0])
        let version = try bits.int(6, "Version")
        guard let layout = USSectionLayout.layout(section: id, version: version) else {
            throw BitsError(reason: "has version \(version), which the GPP specification does not define")
        }
        var fields = [ConsentField("Version", .int(version))]
        for (name, width) in layout.fields {
            switch width {
            case .answer: fields.append(ConsentField(name, .int(try bits.int(2, name))))
            case .answers(let count): fields.append(ConsentField(name, .list(try bits.list(count, of: 2, name))))
            }
        }
        var gpc: Bool?
        for sub in parts.dropFirst() {
            var bits = try Bits(base64url: sub)
            let type = try bits.int(2, "SubsectionType")
            guard layout.hasGPC, type == 1, gpc == nil else {
                throw BitsError(reason: "has an unexpected sub-section (type \(type))")
            }
            gpc = try bits.bool("Gpc")
        }
        if layout.hasGPC {
            fields.append(ConsentField("GpcSegmentIncluded", .bool(gpc != nil)))
            fields.append(ConsentField("Gpc", .bool(gpc ?? false)))
        }
        return fields
    }
}
