/// The `tcfcav1` section (TCF Canada): its core segment, then optional segments by type (1
/// disclosed vendors, 3 publisher purposes), under the GPP specification's field names. Its
/// vendor sets were written with 16-bit ids before iabgpp 3.2 and with Fibonacci-coded ones
/// since; each is read in whichever layout the encoder would have produced it.
enum TCFCanadaLayout {
    static func decode(_ text: Substring) throws(BitsError) -> [ConsentField] {
        let segments = text.split(separator: ".", omittingEmptySubsequences: false)
        guard let core = segments.first else { throw BitsError(reason: "is empty") }
        guard !segments.contains(where: \.isEmpty) else { throw BitsError(reason: "has an empty segment") }
        var fields = try decodeCore(core)
        var seen = Set<Int>()
        for segment in segments.dropFirst() {
            var bits = try Bits(base64url: segment)
            let type = try bits.int(3, "SegmentType")
            guard seen.insert(type).inserted else { throw BitsError(reason: "repeats segment type \(type)") }
            switch type {
            case 1:
                let vendors = try bits.eitherLayout(vendorSet, encoded: IDSetEncoding.optimized)
                fields.append(ConsentField("DisclosedVendors", .ids(vendors)))
            case 3:
                let consents = try bits.bitfield(24, "PubPurposesExpressConsent")
                let implied = try bits.bitfield(24, "PubPurposesImpliedConsent")
                let custom = try bits.int(6, "NumCustomPurposes")
                fields += [
                    ConsentField("PubPurposesExpressConsent", .ids(consents)),
                    ConsentField("PubPurposesImpliedConsent", .ids(implied)),
                    ConsentField("NumCustomPurposes", .int(custom)),
                    ConsentField(
                        "CustomPurposesExpressConsent", .ids(try bits.bitfield(custom, "CustomPurposesExpressConsent"))),
                    ConsentField(
                        "CustomPurposesImpliedConsent", .ids(try bits.bitfield(custom, "CustomPurposesImpliedConsent"))),
                ]
            case let type: throw BitsError(reason: "has segment type \(type), not 1 or 3")
            }
        }
        return fields
    }

    private static func decodeCore(_ text: Substring) throws(BitsError) -> [ConsentField] {
        var bits = try Bits(base64url: text)
        let version = try bits.int(6, "Version")
        guard version == 1 else { throw BitsError(reason: "has version \(version), not 1") }
        var fields: [ConsentField] = [
            ConsentField("Version", .int(version)), ConsentField("Created", .date(try bits.deciseconds("Created"))),
            ConsentField("LastUpdated", .date(try bits.deciseconds("LastUpdated"))),
            ConsentField("CmpId", .int(try bits.int(12, "CmpId"))),
            ConsentField("CmpVersion", .int(try bits.int(12, "CmpVersion"))),
            ConsentField("ConsentScreen", .int(try bits.int(6, "ConsentScreen"))),
            ConsentField("ConsentLanguage", .string(try bits.letters("ConsentLanguage"))),
            ConsentField("VendorListVersion", .int(try bits.int(12, "VendorListVersion"))),
            ConsentField("TcfPolicyVersion", .int(try bits.int(6, "TcfPolicyVersion"))),
            ConsentField("UseNonStandardStacks", .bool(try bits.bool("UseNonStandardStacks"))),
            ConsentField("SpecialFeatureExpressConsent", .ids(try bits.bitfield(12, "SpecialFeatureExpressConsent"))),
            ConsentField("PurposesExpressConsent", .ids(try bits.bitfield(24, "PurposesExpressConsent"))),
            ConsentField("PurposesImpliedConsent", .ids(try bits.bitfield(24, "PurposesImpliedConsent"))),
        ]
        let vendors = try bits.eitherLayout(vendorsAndRestrictions) { value, layout in
            IDSetEncoding.optimized(value.express, layout) + IDSetEncoding.optimized(value.implied, layout)
                + IDSetEncoding.restrictions(value.restrictions, layout)
        }
        fields += [
            ConsentField("VendorExpressConsent", .ids(vendors.express)),
            ConsentField("VendorImpliedConsent", .ids(vendors.implied)),
            ConsentField("PubRestrictions", .restrictions(vendors.restrictions)),
        ]
        return fields
    }

    private static func vendorSet(_ bits: inout Bits, _ layout: IDSetEncoding.Layout) throws(BitsError) -> [Int] {
        layout == .fibonacci ? try bits.optimizedFibonacci("vendors") : try bits.vendorSet("vendors")
    }

    /// The two vendor sets and the publisher restrictions; restrictions that are missing or cut
    /// short read as none, as the reference decoders do.
    private static func vendorsAndRestrictions(_ bits: inout Bits, _ layout: IDSetEncoding.Layout) throws(BitsError)
        -> (express: [Int], implied: [Int], restrictions: [TCString.PublisherRestriction])
    {
        let express = try vendorSet(&bits, layout)
        let implied = try vendorSet(&bits, layout)
        var attempt = bits
        guard let restrictions = try? readRestrictions(&attempt, layout) else { return (express, implied, []) }
        bits = attempt
        return (express, implied, restrictions)
    }

    private static func readRestrictions(_ bits: inout Bits, _ layout: IDSetEncoding.Layout) throws(BitsError)
        -> [TCString.PublisherRestriction]
    {
        var restrictions: [TCString.PublisherRestriction] = []
        for _ in 0..<(try bits.int(12, "PubRestrictions")) {
            let purpose = try bits.int(6, "PubRestrictions")
            let type = try bits.int(2, "PubRestrictions")
            guard let kind = TCString.PublisherRestriction.Kind(rawValue: type) else {
                throw BitsError(reason: "has publisher restriction type \(type), not 0, 1 or 2")
            }
            let vendors =
                layout == .fibonacci
                ? try bits.optimizedFibonacci("PubRestrictions") : try bits.idRanges("PubRestrictions")
            restrictions.append(TCString.PublisherRestriction(purpose: purpose, kind: kind, vendors: vendors))
        }
        return restrictions
    }
}
