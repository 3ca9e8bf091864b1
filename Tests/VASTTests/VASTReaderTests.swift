import Testing

@testable import VAST

/// Reading one document: XML and version errors, times, offsets and the URL clean-up.
@Suite struct VASTReaderTests {
    static func read(_ text: String) throws(VASTError) -> VASTDocument {
        try VASTReader.read(Array(text.utf8))
    }

    @Test func truncatedXMLIs100() throws {
        let whole = try Samples.vast("vast42-iab-inline-linear.xml")
        let error = #expect(throws: VASTError.self) { try VASTReader.read(Array(whole.prefix(1500))) }
        #expect(error?.code == .xmlParse)
        let empty = #expect(throws: VASTError.self) { try VASTReader.read([]) }
        #expect(empty?.code == .xmlParse)
    }

    /// An ad server's document may be hostile: nested entities (the "billion laughs") and an
    /// external entity (a file of the device) must neither blow up nor leak into a URL.
    @Test func entityBombsAndExternalEntitiesAreNotExpanded() throws {
        var entities = #"<!ENTITY l0 "lollollollollollollollollollol">"#
        for level in 1...9 {
            entities += "<!ENTITY l\(level) \"" + String(repeating: "&l\(level - 1);", count: 10) + "\">"
        }
        let bomb = """
            <?xml version="1.0"?><!DOCTYPE VAST [\(entities)]>
            <VAST version="4.0"><Error><![CDATA[http://e/x]]></Error><Ad><InLine><AdTitle>&l9;</AdTitle></InLine></Ad></VAST>
            """
        // Expanded, the title would be 10^9 × 30 bytes: what is read shows none was.
        let outcome = Result { () throws(VASTError) in try Self.read(bomb) }
        if case .success(let document) = outcome {
            for ad in document.ads {
                if case .inLine(let inline) = ad.content { #expect((inline.adTitle ?? "").utf8.count < 100_000) }
            }
        }
        let external = """
            <?xml version="1.0"?><!DOCTYPE VAST [<!ENTITY secret SYSTEM "file:///etc/hostname">]>
            <VAST version="4.0"><Error>http://e/&secret;</Error></VAST>
            """
        if let document = try? Self.read(external) {
            #expect(document.errorURLs.allSatisfy { $0 == "http://e/" || $0.hasSuffix("&secret;") || $0 == "http://e" })
        }
    }

    @Test func versionsOutside2to4Are102AndAMissingVersionIs101() throws {
        let five = #expect(throws: VASTError.self) { try Self.read("<VAST version=\"5.0\"/>") }
        #expect(five?.code == .unsupportedVersion)
        let one = #expect(throws: VASTError.self) { try Self.read("<VAST version=\"1.0\"/>") }
        #expect(one?.code == .unsupportedVersion)
        let missing = #expect(throws: VASTError.self) { try Self.read("<VAST/>") }
        #expect(missing?.code == .schema)
        let document = try Self.read("<VAST version=\"4.3\"/>")
        #expect(document == VASTDocument(version: "4.3"))
    }

    @Test func namespacedDocumentsMatchByLocalName() throws {
        let document = try Self.read(
            """
            <v:VAST xmlns:v="http://www.iab.com/VAST" version="4.0"><v:Ad id="n"><v:InLine>
            <v:Impression>https://t.test/i</v:Impression></v:InLine></v:Ad></v:VAST>
            """)
        #expect(document.ads.first?.id == "n")
        guard case .inLine(let inLine) = document.ads.first?.content else {
            Issue.record("not an InLine")
            return
        }
        #expect(inLine.impressions == ["https://t.test/i"])
        #expect(inLine.creatives == nil)
    }

    @Test func clockTimesAndBareSeconds() {
        #expect(VASTTime.milliseconds("00:00:30") == 30000)
        #expect(VASTTime.milliseconds(" 00:01:30.123 ") == 90123)
        #expect(VASTTime.milliseconds("01:00:00.5") == 3_600_500)
        #expect(VASTTime.milliseconds("30") == 30000)
        #expect(VASTTime.milliseconds("12.25") == 12250)
        #expect(VASTTime.milliseconds("00:61:00") == nil)
        #expect(VASTTime.milliseconds("1:2") == nil)
        #expect(VASTTime.milliseconds("abc") == nil)
        #expect(VASTTime.milliseconds("") == nil)
        #expect(VASTTime.offset("25%") == .percent(25))
        #expect(VASTTime.offset("12.5%") == .percent(12.5))
        #expect(VASTTime.offset("150%") == nil)
        #expect(VASTTime.offset("00:00:05") == .milliseconds(5000))
    }

    @Test func skipOffsetAndProgressOffsetInPercentBecomeMillisecondsOfTheDuration() async throws {
        let tracking = """
            <Tracking event="progress" offset="10%">https://t.test/progress-10pc</Tracking>
            <Tracking event="progress" offset="00:00:03.5">https://t.test/progress-3500</Tracking>
            <Tracking event="progress">https://t.test/progress-no-offset</Tracking>
            <Tracking event="skip"><![CDATA[]]></Tracking>
            <Tracking>https://t.test/no-event</Tracking>
            """
        let adm = Synthetic.inLine(skipOffset: "25%", duration: "00:00:20", tracking: tracking)
        let resolution = await StubFetcher().resolver().resolve(document: Array(adm.utf8), url: nil)
        let creative = try #require(resolution.creative)
        #expect(creative.durationMilliseconds == 20000)
        #expect(creative.skipOffsetMilliseconds == 5000)
        #expect(
            creative.progressTracking == [
                VASTProgressTracker(offsetMilliseconds: 2000, url: "https://t.test/progress-10pc"),
                VASTProgressTracker(offsetMilliseconds: 3500, url: "https://t.test/progress-3500"),
            ])
        #expect(creative.tracking == ["progress": ["https://t.test/progress-no-offset"]])
    }

    @Test func skipOffsetAsATime() async throws {
        let adm = Synthetic.inLine(skipOffset: "00:00:05.250", duration: "30")
        let resolution = await StubFetcher().resolver().resolve(document: Array(adm.utf8), url: nil)
        #expect(resolution.creative?.skipOffsetMilliseconds == 5250)
        #expect(resolution.creative?.durationMilliseconds == 30000)
    }

    @Test func aLinearWithoutADurationIs101() async throws {
        let adm = Synthetic.inLine(duration: "soon")
        let resolution = await StubFetcher().resolver().resolve(document: Array(adm.utf8), url: nil)
        #expect(resolution.error?.code == .schema)
        #expect(resolution.error?.errorURLs == ["https://t.test/inline-error"])
    }

    @Test func urlListsAreTrimmedWithoutEmptiesOrDuplicates() throws {
        let document = try Self.read(
            """
            <VAST version="2.0"><Ad><InLine>
            <Impression/><Impression><![CDATA[]]></Impression><Impression>
              <![CDATA[  https://t.test/i?a=1&b=[CACHEBUSTING]  ]]>
            </Impression><Impression>https://t.test/i?a=1&amp;b=[CACHEBUSTING]</Impression>
            <Impression>//t.test/relative</Impression>
            </InLine></Ad></VAST>
            """)
        guard case .inLine(let inLine) = document.ads.first?.content else {
            Issue.record("not an InLine")
            return
        }
        #expect(inLine.impressions == ["https://t.test/i?a=1&b=[CACHEBUSTING]", "https://t.test/relative"])
    }

    @Test func playOrderPutsThePodBySequenceFirst() {
        let ads = [
            VASTDocument.Ad(id: "standalone-1", content: .unrecognized([])),
            VASTDocument.Ad(id: "pod-2", sequence: 2, content: .unrecognized([])),
            VASTDocument.Ad(id: "pod-1", sequence: 1, content: .unrecognized([])),
            VASTDocument.Ad(id: "standalone-2", content: .unrecognized([])),
        ]
        #expect(VASTResolver.playOrder(ads).map(\.id) == ["pod-1", "pod-2", "standalone-1", "standalone-2"])
    }

    @Test func everySampleReadsOrFailsWithTheExpectedCode() throws {
        let failing: [String: VASTErrorCode] = [
            "vast-client-js/invalid-xmlfile.xml": .xmlParse,
            "vast-client-js/outdated-vast.xml": .unsupportedVersion,
        ]
        let files = try FileManagerListing.xmlFiles(under: Samples.directory.appendingPathComponent("vast"))
        #expect(files.count == 27)
        for file in files {
            let bytes = try Samples.vast(file)
            if let code = failing[file] {
                let error = #expect(throws: VASTError.self, "\(file)") { try VASTReader.read(bytes) }
                #expect(error?.code == code, "\(file)")
            } else {
                #expect(throws: Never.self, "\(file)") { try VASTReader.read(bytes) }
            }
        }
    }

    /// Messages show a URL without its query or fragment, even a URL that is nothing else.
    @Test func aURLIsShownWithoutItsQueryOrFragment() {
        #expect(VASTURLList.shown("https://ads.example/tag?key=secret#f") == "https://ads.example/tag")
        #expect(VASTURLList.shown("?key=secret") == "")
        #expect(VASTURLList.shown("#secret") == "")
        #expect(VASTURLList.shown("/relative/tag.xml") == "/relative/tag.xml")
    }

    /// Elements nested past the bound are refused naming it, and a document just within it
    /// reads.
    @Test func nestingPastTheBoundIsRefusedNamingIt() throws {
        func nested(_ depth: Int) -> [UInt8] {
            Array(
                ("<VAST version=\"4.0\">" + String(repeating: "<a>", count: depth - 1)
                    + String(repeating: "</a>", count: depth - 1) + "</VAST>").utf8)
        }
        #expect(throws: Never.self) { try VASTReader.read(nested(256)) }
        let error = #expect(throws: VASTError.self) { try VASTReader.read(nested(257)) }
        #expect(error?.code == .xmlParse)
        #expect(error?.message == "the document nests elements deeper than 256 levels (limits.max_document_depth)")
        #expect(throws: VASTError.self) { try VASTReader.read(nested(1000), maximumDepth: 999) }
        // A bound above libxml2's own (256) does not lift it: the refusal says whose it is.
        let beyond = #expect(throws: VASTError.self) { try VASTReader.read(nested(300), maximumDepth: 999) }
        #expect(beyond?.message == "the document nests elements deeper than 256 levels (libxml2's own limit)")
        #expect(throws: Never.self) { try VASTReader.read(nested(200), maximumDepth: 999) }
        let far = #expect(throws: VASTError.self) { try VASTReader.read(nested(300)) }
        #expect(far?.message == "the document nests elements deeper than 256 levels (limits.max_document_depth)")
    }
}
