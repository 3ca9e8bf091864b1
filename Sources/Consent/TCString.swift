/// An IAB TCF v2 TC string, decoded: the core segment (every field) and the optional segments.
/// Id sets are sorted arrays of 1-based ids. `decode` refuses a version 1 string as
/// unsupported, and any string it cannot read whole.
public struct TCString: Sendable, Equatable {
    public var version: Int
    /// Epoch milliseconds (the string stores deciseconds).
    public var created: Int64
    public var lastUpdated: Int64
    public var cmpID: Int
    public var cmpVersion: Int
    public var consentScreen: Int
    public var consentLanguage: String
    public var vendorListVersion: Int
    public var policyVersion: Int
    public var isServiceSpecific: Bool
    public var useNonStandardTexts: Bool
    public var specialFeatureOptins: [Int]
    public var purposeConsents: [Int]
    public var purposeLegitimateInterests: [Int]
    public var purposeOneTreatment: Bool
    public var publisherCC: String
    public var vendorConsents: [Int]
    public var vendorLegitimateInterests: [Int]
    public var publisherRestrictions: [PublisherRestriction]
    /// The optional segments: nil when absent.
    public var disclosedVendors: [Int]?
    public var allowedVendors: [Int]?
    public var publisherPurposes: PublisherPurposes?

    /// A publisher's restriction of what vendors may do for one purpose.
    public struct PublisherRestriction: Sendable, Equatable {
        public enum Kind: Int, Sendable {
            case notAllowed = 0
            case requireConsent = 1
            case requireLegitimateInterest = 2
        }

        public var purpose: Int
        public var kind: Kind
        public var vendors: [Int]
    }

    /// The publisher's own purposes segment (type 3).
    public struct PublisherPurposes: Sendable, Equatable {
        public var consents: [Int]
        public var legitimateInterests: [Int]
        /// How many custom purposes the publisher defined.
        public var customCount: Int
        public var customConsents: [Int]
        public var customLegitimateInterests: [Int]
    }

    /// Decodes `text`: the core segment, then each optional segment by its type (1 disclosed
    /// vendors, 2 allowed vendors, 3 publisher purposes), separated by '.'.
    public static func decode(_ text: String) throws(ConsentStringError) -> TCString {
        var segments = text.split(separator: ".", omittingEmptySubsequences: false)[...]
        guard let core = segments.popFirst() else { throw ConsentStringError(.tcfConsent, "is empty") }
        var bits: Bits
        let version: Int
        do throws(BitsError) {
            bits = try Bits(base64url: core)
            version = try bits.int(6, "Version")
        } catch {
            throw ConsentStringError(.tcfConsent, error.reason)
        }
        guard version != 1 else {
            throw ConsentStringError(.tcfConsent, "is a TCF v1 string; only TCF v2 is supported")
        }
        guard version == 2 else { throw ConsentStringError(.tcfConsent, "has version \(version), not TCF v2") }
        var string: TCString
        do throws(BitsError) {
            string = try TCString(core: &bits, version: version)
        } catch {
            throw ConsentStringError(.tcfConsent, section: "core segment", error.reason)
        }
        var seen = Set<Int>()
        for (index, segment) in segments.enumerated() {
            let name = "segment \(index + 2)"
            do throws(BitsError) {
                var bits = try Bits(base64url: segment)
                let type = try bits.int(3, "SegmentType")
                guard seen.insert(type).inserted else { throw BitsError(reason: "repeats segment type \(type)") }
                switch type {
                case 1: string.disclosedVendors = try bits.vendorSet("disclosed vendors")
                case 2: string.allowedVendors = try bits.vendorSet("allowed vendors")
                case 3: string.publisherPurposes = try PublisherPurposes(&bits)
                case let type: throw BitsError(reason: "has segment type \(type), not 1, 2 or 3")
                }
            } catch {
                throw ConsentStringError(.tcfConsent, section: name, error.reason)
            }
        }
        return string
    }

    /// The core segment after its version.
    private init(core bits: inout Bits, version: Int) throws(BitsError) {
        self.version = version
        created = try bits.deciseconds("Created")
        lastUpdated = try bits.deciseconds("LastUpdated")
        cmpID = try bits.int(12, "CmpId")
        cmpVersion = try bits.int(12, "CmpVersion")
        consentScreen = try bits.int(6, "ConsentScreen")
        consentLanguage = try bits.letters("ConsentLanguage")
        vendorListVersion = try bits.int(12, "VendorListVersion")
        policyVersion = try bits.int(6, "TcfPolicyVersion")
        isServiceSpecific = try bits.bool("IsServiceSpecific")
        useNonStandardTexts = try bits.bool("UseNonStandardTexts")
        specialFeatureOptins = try bits.bitfield(12, "SpecialFeatureOptIns")
        purposeConsents = try bits.bitfield(24, "PurposesConsent")
        purposeLegitimateInterests = try bits.bitfield(24, "PurposesLITransparency")
        purposeOneTreatment = try bits.bool("PurposeOneTreatment")
        publisherCC = try bits.letters("PublisherCC")
        vendorConsents = try bits.vendorSet("vendor consents")
        vendorLegitimateInterests = try bits.vendorSet("vendor legitimate interests")
        publisherRestrictions = []
        for _ in 0..<(try bits.int(12, "NumPubRestrictions")) {
            let purpose = try bits.int(6, "PurposeId")
            let type = try bits.int(2, "RestrictionType")
            guard let kind = PublisherRestriction.Kind(rawValue: type) else {
                throw BitsError(reason: "has publisher restriction type \(type), not 0, 1 or 2")
            }
            let vendors = try bits.idRanges("publisher restriction vendors")
            publisherRestrictions.append(PublisherRestriction(purpose: purpose, kind: kind, vendors: vendors))
        }
        disclosedVendors = nil
        allowedVendors = nil
        publisherPurposes = nil
    }
}

extension TCString.PublisherPurposes {
    init(_ bits: inout Bits) throws(BitsError) {
        consents = try bits.bitfield(24, "PubPurposesConsent")
        legitimateInterests = try bits.bitfield(24, "PubPurposesLITransparency")
        let custom = try bits.int(6, "NumCustomPurposes")
        customCount = custom
        customConsents = try bits.bitfield(custom, "CustomPurposesConsent")
        customLegitimateInterests = try bits.bitfield(custom, "CustomPurposesLITransparency")
    }
}
