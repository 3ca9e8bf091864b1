import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// One XML element, by local name (no namespace prefix), with its attributes, child elements and own text.
/// A small Sendable tree that Foundation's `XMLParser` fills, so reading VAST never holds parser objects.
struct VASTXMLElement: Sendable, Equatable {
    var name: String
    var attributes: [String: String]
    var children: [VASTXMLElement]
    /// The element's own character data and CDATA, in order, untrimmed.
    var text: String

    /// The first child element with this local name.
    func child(_ name: String) -> VASTXMLElement? {
        children.first { $0.name == name }
    }

    /// Every child element with this local name, in document order.
    func children(_ name: String) -> [VASTXMLElement] {
        children.filter { $0.name == name }
    }

    /// The element's text without the whitespace and newlines around it.
    var trimmedText: String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// An attribute by local name; an unprefixed attribute wins over a prefixed one of the same local name.
    func attribute(_ name: String) -> String? {
        attributes[name]
    }
}

/// Parses bytes into a `VASTXMLElement` tree with Foundation's `XMLParser` (libxml2 on Linux).
enum VASTXMLTreeBuilder {
    /// libxml2's global state is not documented as safe for parsers on several threads at once; parses are short.
    private static let lock = NSLock()

    /// Why bytes gave no tree.
    enum Failure: Error {
        case notWellFormed
        /// Elements nest deeper than the bound: refused before the tree grows past it.
        case tooDeep(bound: Int)
    }

    /// The root element. The parser reports elements one at a time and the tree is never
    /// deeper than `maximumDepth`, so no recursion that the document controls (building,
    /// comparing or releasing the tree) can exhaust a thread's stack.
    static func parse(_ bytes: [UInt8], maximumDepth: Int) -> Result<VASTXMLElement, Failure> {
        guard !bytes.isEmpty else { return .failure(.notWellFormed) }
        let delegate = TreeDelegate(maximumDepth: maximumDepth)
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = delegate
        let parsed = lock.withLock { parser.parse() }
        if delegate.tooDeep { return .failure(.tooDeep(bound: maximumDepth)) }
        guard parsed, !delegate.failed, let root = delegate.root else { return .failure(.notWellFormed) }
        return .success(root)
    }

    /// Removes a namespace prefix: `vast:Ad` → `Ad`.
    static func localName(_ qualifiedName: String) -> String {
        guard let colon = qualifiedName.lastIndex(of: ":") else { return qualifiedName }
        return String(qualifiedName[qualifiedName.index(after: colon)...])
    }
}

/// Collects elements while `XMLParser` reports them; used on one thread for one parse only.
private final class TreeDelegate: NSObject, XMLParserDelegate {
    let maximumDepth: Int
    var stack: [VASTXMLElement] = []
    var root: VASTXMLElement?
    var failed = false
    var tooDeep = false

    init(maximumDepth: Int) {
        self.maximumDepth = maximumDepth
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        guard !failed else { return }
        guard stack.count < maximumDepth else {
            tooDeep = true
            failed = true
            parser.abortParsing()
            return
        }
        var attributes: [String: String] = [:]
        for (key, value) in attributeDict where !key.hasPrefix("xmlns") {
            let local = VASTXMLTreeBuilder.localName(key)
            // An unprefixed attribute wins over a prefixed one with the same local name.
            if local == key || attributes[local] == nil {
                attributes[local] = value
            }
        }
        stack.append(
            VASTXMLElement(
                name: VASTXMLTreeBuilder.localName(elementName), attributes: attributes, children: [], text: ""))
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        guard !failed else { return }
        guard let element = stack.popLast() else {
            failed = true
            return
        }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA cdataBlock: Data) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += String(decoding: cdataBlock, as: UTF8.self)
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        failed = true
    }
}
