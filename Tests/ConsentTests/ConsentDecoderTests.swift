import SharedTypes
import Testing

@testable import Consent

/// The decoders at the bit level: edge cases the IAB vectors do not reach, and further
/// reference vectors (iabgpp-es 3.2's tests) for sections the shared set has none of.
struct ConsentDecoderTests {
    /// `bits` as base64url, zero-padded to whole characters.
    static func base64url(_ bits: [Bool]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let padded = bits + Array(repeating: false, count: (6 - bits.count % 6) % 6)
        return String(
            stride(from: 0, to: padded.count, by: 6).map { start in
                alphabet[padded[start..<start + 6].reduce(0) { $0 << 1 | ($1 ? 1 : 0) }]
            })
    }

    static func int(_ value: Int, _ width: Int) -> [Bool] { IDSetEncoding.int(value, width) }

    /// A TC core segment up to its vendor sections: version 2 and zeros, language "EN".
    static var corePrefix: [Bool] {
        int(2, 6) + int(0, 36 + 36 + 12 + 12 + 6) + int(4, 6) + int(13, 6) + int(0, 12 + 6 + 1 + 1 + 12 + 24 + 24 + 1)
            + int(0, 6) + int(0, 6)
    }

    @Test func aVendorRangeEndingBeforeItsStartIsRefusedByName() {
        let vendors = Self.int(10, 16) + [true] + Self.int(1, 12) + [true] + Self.int(8, 16) + Self.int(3, 16)
        let text = Self.base64url(Self.corePrefix + vendors + Self.int(0, 17) + Self.int(0, 12))
        let error = #expect(throws: ConsentStringError.self) { try TCString.decode(text) }
        #expect(
            error?.description
                == "tcf_consent: section core segment: vendor consents has a range ending at 3 before its start 8")
    }

    @Test func rangesNamingMillionsOfIdsAreRefusedNotExpanded() {
        // 4095 publisher restrictions, each vendors 1-65535: 53 bits apiece, 268 million ids.
        var restrictions = Self.int(4095, 12)
        for _ in 0..<4095 {
            restrictions +=
                Self.int(1, 6) + Self.int(1, 2) + Self.int(1, 12) + [true] + Self.int(1, 16)
                + Self.int(65_535, 16)
        }
        let text = Self.base64url(Self.corePrefix + Self.int(0, 17) + Self.int(0, 17) + restrictions)
        let error = #expect(throws: ConsentStringError.self) { try TCString.decode(text) }
        #expect(error?.reason.hasSuffix("its ranges name more than 196608 ids in the segment") == true)
        // Vendor consents as 4095 ranges of 1-65535.
        var vendors = Self.int(65_535, 16) + [true] + Self.int(4095, 12)
        for _ in 0..<4095 { vendors += [true] + Self.int(1, 16) + Self.int(65_535, 16) }
        #expect(throws: ConsentStringError.self) {
            try TCString.decode(Self.base64url(Self.corePrefix + vendors + Self.int(0, 17) + Self.int(0, 12)))
        }
        // A GPP header of 4095 groups, each of thousands of ids, before a single section.
        var header = Self.int(3, 6) + Self.int(1, 6) + Self.int(4095, 12)
        for _ in 0..<4095 { header += [true] + IDSetEncoding.fibonacci(1) + IDSetEncoding.fibonacci(6765) }
        let gpp = #expect(throws: ConsentStringError.self) { try GPPString.decode(Self.base64url(header) + "~1YNN") }
        #expect(
            gpp?.description
                == "gpp: section header: SectionIds names section tcfeuv2 (2), which the string does not carry")
    }

    @Test func aSegmentTypeGivenTwiceIsRefused() {
        let core = "COtybn4PA_zT4KjACBENAPCIAEBAAECAAIAAAAAAAAAA"
        let error = #expect(throws: ConsentStringError.self) { try TCString.decode("\(core).IAAA.IAAA") }
        #expect(error?.description == "tcf_consent: section segment 3: repeats segment type 1")
    }

    @Test func aMaxVendorIDOfZeroIsAnEmptySet() throws {
        let text = Self.base64url(Self.corePrefix + Self.int(0, 17) + Self.int(0, 17) + Self.int(0, 12))
        let decoded = try TCString.decode(text)
        #expect(decoded.vendorConsents.isEmpty && decoded.vendorLegitimateInterests.isEmpty)
        #expect(decoded.consentLanguage == "EN" && decoded.publisherRestrictions.isEmpty)
    }

    @Test func aStringCutShortAtAnyPointIsRefusedNeverACrash() throws {
        // A string with range-encoded vendors and a publisher restriction: every field kind.
        let full = "COwBOpCOwBOpCLqAAAENAPCAAAAAAAAAAAAAFfwAQFfgUbABAUaAAA"
        _ = try TCString.decode(full)
        for length in 1..<(full.count - 1) {
            let cut = String(full.prefix(length))
            let error = #expect(throws: ConsentStringError.self, "\(length)") { try TCString.decode(cut) }
            #expect(error?.source == .tcfConsent)
        }
        let gpp = "DBABLA~CVVVkkkkkpFY.YA"
        _ = try GPPString.decode(gpp)
        // Every cut before the whole core (the GPC sub-section after it is optional).
        for length in 1..<19 where Array(gpp)[length - 1] != "~" {
            let cut = String(gpp.prefix(length))
            #expect(throws: ConsentStringError.self, "\(cut)") { try GPPString.decode(cut) }
        }
    }

    @Test func errorsNameTheStringTheSectionAndWhatWasWrong() {
        let short = #expect(throws: ConsentStringError.self) { try GPPString.decode("DBABLA~BVVV") }
        #expect(short?.description == "gpp: section usnat: ends at bit 24, needs 48 for SensitiveDataProcessing")
        let count = #expect(throws: ConsentStringError.self) { try GPPString.decode("DBACNYA~1YNN") }
        #expect(
            count?.description
                == "gpp: section header: SectionIds names section uspv1 (6), which the string does not carry")
        let v1 = #expect(throws: ConsentStringError.self) {
            try TCString.decode("BOEFEAyOEFEAyAHABDENAI4AAAB9vABAASA")
        }
        #expect(v1?.description == "tcf_consent: is a TCF v1 string; only TCF v2 is supported")
        let character = #expect(throws: ConsentStringError.self) { try TCString.decode("CO tybn") }
        #expect(character?.description == "tcf_consent: character 3 is not base64url")
    }

    @Test func usPrivacyStringsAreReadAndBadOnesRefused() throws {
        let usp = try USPrivacyString.decode("1YN-")
        #expect(usp.notice == .yes && usp.optOutSale == .no && usp.lspaCovered == .notApplicable)
        for (text, reason) in [
            ("1YN", "has 3 characters, needs 4"), ("2YNN", "must begin with its version, 1"),
            ("1YXN", "opt-out-sale must be Y, N or -"),
        ] {
            let error = #expect(throws: ConsentStringError.self) { try USPrivacyString.decode(text) }
            #expect(error?.description == "us_privacy: \(reason)")
        }
    }

    @Test func headersWithGroupsOfSectionIds() throws {
        #expect(try GPPString.sectionIDs(header: "DBABjw") == [5, 6])
        #expect(try GPPString.sectionIDs(header: "DBACOcGA") == [2] + Array(5...27))
    }

    /// An id no section of this daemon has (30: none is registered there).
    @Test func anUnknownSectionIsKeptUndecodedAndShownAsSuch() throws {
        let header = Self.int(3, 6) + Self.int(1, 6) + IDSetEncoding.ranges([6, 30], .fibonacci)
        let gpp = try GPPString.decode(Self.base64url(header) + "~1YNN~whatever")
        #expect(gpp.sectionIDs == [6, 30])
        #expect(gpp.section(30)?.name == nil && gpp.section(30)?.fields.isEmpty == true)
        #expect(gpp.section(6)?.usPrivacy?.optOutSale == .no)
        guard case .object(let json) = gpp.json, case .object(let sections) = json["sections"] else {
            Issue.record("no sections")
            return
        }
        #expect(sections["30"] == .object(["undecoded": .bool(true)]))
    }

    @Test func tcfCanadaReadsBothVendorLayouts() throws {
        // iabgpp-es 3.2 TcfCaV1.test.ts: the same restriction written with Fibonacci-coded and
        // with 16-bit ids; a disclosed-vendors segment likewise.
        for core in [
            "BPSG_8APSG_8AAAAAAENAACAAAAAAAAAAAAAAAAACCgAS7o",
            "BPSG_8APSG_8AAAAAAENAACAAAAAAAAAAAAAAAAACCgBwABAAOAAoADgAJA",
        ] {
            // A segment type given twice is refused, as in a TC string.
            #expect(throws: BitsError.self) { try TCFCanadaLayout.decode("\(core).IAGO5w.IAGO5w"[...]) }
            #expect(throws: BitsError.self) { try TCFCanadaLayout.decode("\(core)..IAGO5w"[...]) }
            for disclosed in ["IAGO5w", "IAGO5wAA"] {
                let fields = try TCFCanadaLayout.decode("\(core).\(disclosed)"[...])
                #expect(
                    fields["PubRestrictions"]
                        == .restrictions([.init(purpose: 1, kind: .requireConsent, vendors: [1, 2, 3, 5, 6, 7, 9])]),
                    "\(core)")
                #expect(fields["DisclosedVendors"] == .ids([1, 2, 3, 5, 6, 7, 10, 11, 12]), "\(disclosed)")
                #expect(fields["ConsentLanguage"] == .string("EN") && fields["Version"] == .int(1))
            }
        }
    }

    @Test func stateSectionsAndTheEUSegmentsUnderGPPNames() throws {
        let usct = try GPPSection.decode(id: 12, "BVWSSZFg")
        #expect(usct.fields["SensitiveDataProcessing"] == .list([2, 1, 0, 2, 1, 0, 2, 1]))
        #expect(usct.fields["KnownChildSensitiveDataConsents"] == .list([2, 1, 0]))
        #expect(usct.fields["GpcSegmentIncluded"] == .bool(false))
        let eu = try GPPSection.decode(
            id: 2, "CPTtLAAPTtLAAAAAAAENAAFgALwAAEAAAAAAAOgAgABgAAAA.IAoAAgABgAAEAQAAEAAA.d4AACEAAAAAA")
        #expect(eu.fields["VendorConsents"] == .ids([11, 28, 29]))
        #expect(eu.fields["VendorsDisclosed"] == .ids([11, 28, 29, 50, 60, 80]))
        #expect(eu.fields["Created"]?.json == .string("2022-02-01T00:00:00Z"))
        #expect(eu.fields["PublisherConsents"] == .ids([1, 3, 4, 5, 6]))
    }
}
