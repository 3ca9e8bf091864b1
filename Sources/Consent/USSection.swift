/// A GPP US section's fields (7-27), decoded by its `USSectionLayout`: the core, then its one
/// optional sub-section ('.'-separated): GPC (`GpcSegmentIncluded`, `Gpc`) or, in 25-27, the
/// sensitive-data consents (`SensitiveDataConsentSegmentIncluded`, `SensitiveDataProcessing`).
///
/// Sections 24-27 come in two forms, told apart by their first 6 bits. The reference
/// implementation (iabgpp-es, the only one that has them) opens the core with `MspaVersion`;
/// the published text (October 2025, in public comment) puts a section header segment first:
/// `SectionID` (the section's own id, 24-27, where `MspaVersion` is 1), `Version` and
/// `SubSections`, a Fibonacci range like the GPP header's. That range cannot code the core's
/// id 0, so it is read as the ids of the sub-sections after the core, in their order.
///
/// A segment may end with at most 11 bits past its last field: the padding of an encoder that
/// pads to whole bytes, then to whole characters (iabgpp); more is a section of the wrong length.
enum USSection {
    static func decode(id: Int, _ text: Substring) throws(BitsError) -> [ConsentField] {
        var segments = text.split(separator: ".", omittingEmptySubsequences: false)[...]
        var fields: [ConsentField] = []
        var headerVersion: Int?
        var listed: [Int]?
        if let header = try sectionHeader(segments[segments.startIndex], id: id) {
            fields.append(ConsentField("Version", .int(header.version)))
            headerVersion = header.version
            listed = header.subsections
            segments = segments.dropFirst()
            guard !segments.isEmpty else { throw BitsError(reason: "has a section header but no core") }
        }
        var core = try Bits(base64url: segments[segments.startIndex])
        let opening = (24...27).contains(id) ? "MspaVersion" : "Version"
        let version = try core.int(6, opening)
        let layoutVersion = headerVersion ?? version
        guard let layout = USSectionLayout.layout(section: id, version: layoutVersion) else {
            throw BitsError(
                reason: "has \(headerVersion == nil ? opening : "Version") \(layoutVersion), "
                    + "which the GPP specification does not define")
        }
        fields.append(ConsentField(layout.versionField, .int(version)))
        for (name, width) in layout.fields {
            switch width {
            case .answer: fields.append(ConsentField(name, .int(try core.int(2, name))))
            case .answers(let count): fields.append(ConsentField(name, .list(try core.list(count, of: 2, name))))
            }
        }
        try core.end(after: layout.fields.last?.name ?? opening, of: "the core")
        let rest = segments.dropFirst()
        if let listed {
            guard listed.count == rest.count, listed.allSatisfy({ $0 == 1 }), listed.count <= 1 else {
                throw BitsError(
                    reason: "its header's SubSections name \(listed), the section has \(rest.count) after its core "
                        + "(sub-section 1, once, is the only one defined)")
            }
        }
        let most = layout.subsection == nil ? 0 : 1
        guard rest.count <= most else {
            throw BitsError(reason: "has \(rest.count) sub-sections after its core, at most \(most)")
        }
        fields += try subsection(layout.subsection, rest.first)
        return fields
    }

    /// The published form's section header of 24-27, when `text` is one (its first 6 bits are
    /// the section's id): its `Version` and the `SubSections` it names.
    private static func sectionHeader(_ text: Substring, id: Int) throws(BitsError)
        -> (version: Int, subsections: [Int])?
    {
        guard (24...27).contains(id), var bits = try? Bits(base64url: text) else { return nil }
        guard (try? bits.int(6, "SectionID")) == id else { return nil }
        let version = try bits.int(6, "Version")
        let subsections = try bits.fibonacciRange("SubSections", atMost: 8)
        try bits.end(after: "SubSections", of: "the section header")
        return (version, subsections)
    }

    /// The fields of the sub-section `text` is (nil: absent), as `kind` lays it out.
    private static func subsection(_ kind: USSectionLayout.Subsection?, _ text: Substring?) throws(BitsError)
        -> [ConsentField]
    {
        switch kind {
        case nil: return []
        case .gpc:
            var gpc = false
            if let text {
                var bits = try Bits(base64url: text)
                let type = try bits.int(2, "SubsectionType")
                guard type == 1 else { throw BitsError(reason: "has a sub-section of type \(type), not 1 (GPC)") }
                gpc = try bits.bool("Gpc")
                try bits.end(after: "Gpc", of: "the GPC sub-section")
            }
            return [ConsentField("GpcSegmentIncluded", .bool(text != nil)), ConsentField("Gpc", .bool(gpc))]
        case .sensitiveData(let count):
            var values = [Int](repeating: 0, count: count)
            if let text {
                var bits = try Bits(base64url: text)
                values = try bits.list(count, of: 2, "SensitiveDataProcessing")
                try bits.end(after: "SensitiveDataProcessing", of: "the sensitive-data sub-section")
            }
            return [
                ConsentField("SensitiveDataConsentSegmentIncluded", .bool(text != nil)),
                ConsentField("SensitiveDataProcessing", .list(values)),
            ]
        }
    }
}

extension Bits {
    /// Fails when more is left than padding: at most 11 bits (whole bytes, then whole
    /// base64url characters, as iabgpp pads).
    func end(after field: String, of part: String) throws(BitsError) {
        guard remaining <= 11 else {
            throw BitsError(
                reason: "\(part) has \(remaining) bits past its last field (\(field)), more than padding: "
                    + "a section of the wrong length")
        }
    }
}
