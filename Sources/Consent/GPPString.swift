/// An IAB Global Privacy Platform string, decoded: the header's section ids (Fibonacci coded)
/// and each section after it, '~'-separated, in the header's order.
public struct GPPString: Sendable, Equatable {
    public var sectionIDs: [Int]
    public var sections: [GPPSection]

    /// The section with id `id`, if the string has it.
    public func section(_ id: Int) -> GPPSection? {
        sections.first { $0.id == id }
    }

    public static func decode(_ text: String) throws(ConsentStringError) -> GPPString {
        let parts = text.split(separator: "~", omittingEmptySubsequences: false)
        let ids = try sectionIDs(header: parts[0], atMost: parts.count - 1)
        guard ids.count == parts.count - 1 else {
            throw ConsentStringError(
                .gpp, section: "header", "SectionIds names \(ids.count) sections, the string carries \(parts.count - 1)"
            )
        }
        var sections: [GPPSection] = []
        for (id, part) in zip(ids, parts.dropFirst()) {
            sections.append(try GPPSection.decode(id: id, part))
        }
        return GPPString(sectionIDs: ids, sections: sections)
    }
}

extension GPPString {
    /// The section ids a header names: type 3, version 1, then the Fibonacci-coded ids; more
    /// than `atMost` is refused as soon as it is seen.
    static func sectionIDs(header: Substring, atMost limit: Int = 64) throws(ConsentStringError) -> [Int] {
        do throws(BitsError) {
            var bits = try Bits(base64url: header)
            let type = try bits.int(6, "Type")
            guard type == 3 else { throw BitsError(reason: "has type \(type), not 3 (a GPP header)") }
            let version = try bits.int(6, "Version")
            guard version == 1 else { throw BitsError(reason: "has version \(version), not 1") }
            return try bits.fibonacciRange("SectionIds", atMost: limit) { id in
                "section \(GPPSection.names[id] ?? String(id)) (\(id)), which the string does not carry"
            }
        } catch {
            throw ConsentStringError(.gpp, section: "header", error.reason)
        }
    }
}

extension Bits {
    /// GPP's list of ids: a count (12 bits), then entries, each a single id or a range, as
    /// Fibonacci-coded offsets from the end of the entry before (the first from 0).
    /// Ids are at most 65,535, and count against the segment's bound like any range's; past
    /// `limit` ids it stops, naming the first id past it as `past` says.
    mutating func fibonacciRange(
        _ field: String, atMost limit: Int = .max, past: (Int) -> String = { "\($0), past the limit" }
    ) throws(BitsError) -> [Int] {
        var ids: [Int] = []
        var last = 0
        for _ in 0..<(try int(12, field)) {
            let isRange = try bool(field)
            let start = last + (try fibonacci(field))
            let end = isRange ? start + (try fibonacci(field)) : start
            guard end <= 65_535 else { throw BitsError(reason: "\(field) names id \(end), past 65535") }
            try spend(end - start + 1, field)
            ids += start...end
            guard ids.count <= limit else { throw BitsError(reason: "\(field) names \(past(ids[limit]))") }
            last = end
        }
        return ids
    }
}
