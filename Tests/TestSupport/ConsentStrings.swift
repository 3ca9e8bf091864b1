import Foundation

/// Consent strings written bit by bit for the tests, independently of the daemon's decoder:
/// a TC string with the purposes, vendors and restrictions a case needs, and a GPP string with
/// one US section.
public enum ConsentStrings {
    /// The real time now, epoch ms: what the in-process daemon's wall clock starts at.
    public static var now: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// The start of today (UTC), epoch ms: a CMP dates a TC string by its day.
    public static var today: Int64 { now / 86_400_000 * 86_400_000 }

    /// A TCF v2.3 TC string: the core segment (vendor sets as bit fields, CMP 7, language EN)
    /// and, unless `disclosedVendors` is nil, a DisclosedVendors segment; made today, policy
    /// version 4, service-specific.
    public struct TC: Sendable {
        public var policyVersion = 4
        /// Created and LastUpdated, epoch ms (stored in deciseconds).
        public var created = ConsentStrings.today
        public var lastUpdated = ConsentStrings.today
        public var isServiceSpecific = true
        /// The DisclosedVendors segment's vendors; nil: no such segment.
        public var disclosedVendors: Set<Int>? = []
        public var specialFeatureOptins: Set<Int> = []
        public var purposeConsents: Set<Int> = []
        public var purposeLegitimateInterests: Set<Int> = []
        public var vendorConsents: Set<Int> = []
        public var vendorLegitimateInterests: Set<Int> = []
        /// Publisher restrictions: purpose, type (0 not allowed, 1 consent, 2 legitimate
        /// interest), vendors.
        public var restrictions: [(purpose: Int, type: Int, vendors: [Int])] = []

        public init() {}

        /// Everything for `vendor`: all purposes with consent and legitimate interest.
        public static func consentingToEverything(vendor: Int) -> TC {
            var tc = TC()
            tc.purposeConsents = Set(1...11)
            tc.purposeLegitimateInterests = Set([2, 7, 8, 9, 10, 11])
            tc.vendorConsents = [vendor]
            tc.vendorLegitimateInterests = [vendor]
            tc.specialFeatureOptins = [1, 2]
            tc.disclosedVendors = [vendor]
            return tc
        }

        public var string: String {
            var bits = Bits()
            bits.int(2, 6)
            bits.int(Int(created / 100), 36)
            bits.int(Int(lastUpdated / 100), 36)
            bits.int(7, 12)
            bits.int(1, 12)
            bits.int(1, 6)
            bits.int(4, 6)
            bits.int(13, 6)
            bits.int(100, 12)
            bits.int(policyVersion, 6)
            bits.int(isServiceSpecific ? 1 : 0, 1)
            bits.int(0, 1)
            bits.field(specialFeatureOptins, 12)
            bits.field(purposeConsents, 24)
            bits.field(purposeLegitimateInterests, 24)
            bits.int(0, 1)
            bits.int(0, 6)
            bits.int(0, 6)
            for vendors in [vendorConsents, vendorLegitimateInterests] {
                let maxID = vendors.max() ?? 0
                bits.int(maxID, 16)
                bits.int(0, 1)
                bits.field(vendors, maxID)
            }
            bits.int(restrictions.count, 12)
            for restriction in restrictions {
                bits.int(restriction.purpose, 6)
                bits.int(restriction.type, 2)
                bits.int(restriction.vendors.count, 12)
                for vendor in restriction.vendors {
                    bits.int(0, 1)
                    bits.int(vendor, 16)
                }
            }
            guard let disclosedVendors else { return bits.base64url }
            var segment = Bits()
            segment.int(1, 3)
            let maxID = disclosedVendors.max() ?? 0
            segment.int(maxID, 16)
            segment.int(0, 1)
            segment.field(disclosedVendors, maxID)
            return bits.base64url + "." + segment.base64url
        }
    }

    /// A GPP string of one `usnat` (version 2) section: every notice given, no opt-out, no
    /// sensitive data, not an MSPA covered transaction; `fields` overrides any of them by name.
    public static func usnat(_ fields: [String: Int] = [:], gpc: Bool? = nil) -> String {
        let order: [(String, Int, Int)] = [
            ("SharingNotice", 1, 1), ("SaleOptOutNotice", 1, 1), ("SharingOptOutNotice", 1, 1),
            ("TargetedAdvertisingOptOutNotice", 1, 1), ("SensitiveDataProcessingOptOutNotice", 1, 1),
            ("SensitiveDataLimitUseNotice", 1, 1), ("SaleOptOut", 1, 2), ("SharingOptOut", 1, 2),
            ("TargetedAdvertisingOptOut", 1, 2), ("SensitiveDataProcessing", 16, 0),
            ("KnownChildSensitiveDataConsents", 3, 0), ("PersonalDataConsents", 1, 0),
            ("MspaCoveredTransaction", 1, 2), ("MspaOptOutOptionMode", 1, 0), ("MspaServiceProviderMode", 1, 0),
        ]
        var core = Bits()
        core.int(2, 6)
        for (name, count, value) in order {
            for _ in 0..<count { core.int(fields[name] ?? value, 2) }
        }
        var section = core.base64url
        if let gpc {
            var sub = Bits()
            sub.int(1, 2)
            sub.int(gpc ? 1 : 0, 1)
            section += "." + sub.base64url
        }
        return header(sections: [7]) + "~" + section
    }

    /// A GPP header naming `sections` (ascending), each a single Fibonacci-coded offset.
    public static func header(sections: [Int]) -> String {
        var bits = Bits()
        bits.int(3, 6)
        bits.int(1, 6)
        bits.int(sections.count, 12)
        var last = 0
        for id in sections {
            bits.int(0, 1)
            bits.fibonacci(id - last)
            last = id
        }
        return bits.base64url
    }

    /// Bits written most significant first, and their base64url (zero-padded).
    struct Bits {
        var bits: [Bool] = []

        mutating func int(_ value: Int, _ width: Int) {
            for shift in stride(from: width - 1, through: 0, by: -1) { bits.append(value >> shift & 1 == 1) }
        }

        /// A bit per id from 1 to `width`.
        mutating func field(_ ids: Set<Int>, _ width: Int) {
            for id in stride(from: 1, through: width, by: 1) { bits.append(ids.contains(id)) }
        }

        mutating func fibonacci(_ value: Int) {
            var weights = [1, 2]
            while weights[weights.count - 1] + weights[weights.count - 2] <= value {
                weights.append(weights[weights.count - 1] + weights[weights.count - 2])
            }
            var code = [Bool](repeating: false, count: weights.count)
            var rest = value
            for index in weights.indices.reversed() where weights[index] <= rest {
                code[index] = true
                rest -= weights[index]
            }
            while code.last == false { code.removeLast() }
            bits += code + [true]
        }

        var base64url: String {
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            let padded = bits + [Bool](repeating: false, count: (6 - bits.count % 6) % 6)
            return String(
                stride(from: 0, to: padded.count, by: 6).map { start in
                    alphabet[padded[start..<start + 6].reduce(0) { $0 << 1 | ($1 ? 1 : 0) }]
                })
        }
    }
}
