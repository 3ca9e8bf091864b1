import CLibXML2

/// Parses bytes into a `VASTXMLElement` tree with libxml2's streaming reader (`xmlTextReader`),
/// under `ss_xml_read_options`: no network, no entity expansion, no external DTD.
enum VASTXMLTreeBuilder {
    /// libxml2's global state, set up once before any parse: then parsers on several threads
    /// at once are safe, each on its own reader.
    private static let initialized: Void = xmlInitParser()

    /// libxml2's own bound on nesting (XML_PARSE_HUGE lifts it, and other limits with it: this
    /// reader does not): a deeper document is refused whatever the caller's bound.
    static let libxml2MaximumDepth = 256

    /// Why bytes gave no tree.
    enum Failure: Error {
        case notWellFormed
        /// Elements nest deeper than the bound: refused before the tree grows past it.
        case tooDeep(bound: Int)
    }

    /// The root element. The reader reports nodes one at a time and the tree is never deeper
    /// than `maximumDepth`, so no recursion that the document controls (building, comparing or
    /// releasing the tree) can exhaust a thread's stack.
    static func parse(_ bytes: [UInt8], maximumDepth: Int) -> Result<VASTXMLElement, Failure> {
        guard !bytes.isEmpty, let size = Int32(exactly: bytes.count) else { return .failure(.notWellFormed) }
        _ = initialized
        return bytes.withUnsafeBufferPointer { buffer in
            // The reader reads `buffer` in place: it is used up and freed within this closure.
            guard let base = buffer.baseAddress,
                let reader = base.withMemoryRebound(
                    to: CChar.self, capacity: buffer.count,
                    {
                        xmlReaderForMemory($0, size, nil, nil, ss_xml_read_options)
                    })
            else { return .failure(.notWellFormed) }
            defer { xmlFreeTextReader(reader) }
            var errors = ReaderErrors()
            return withUnsafeMutablePointer(to: &errors) { errors in
                // Errors are not printed (the options say so); a fatal one fails the parse.
                xmlTextReaderSetStructuredErrorHandler(
                    reader,
                    { context, error in
                        guard let error, error.pointee.level == XML_ERR_FATAL,
                            let errors = context?.assumingMemoryBound(to: ReaderErrors.self)
                        else { return }
                        errors.pointee.fatal = true
                        // libxml2's own depth bound, as libxml2 2.9 words it.
                        let message = error.pointee.message.map { String(cString: $0) } ?? ""
                        if message.hasPrefix("Excessive depth") { errors.pointee.tooDeep = true }
                    }, errors)
                var tree = TreeStack(maximumDepth: maximumDepth)
                while true {
                    let step = xmlTextReaderRead(reader)
                    guard step == 1 else {
                        guard step == 0, !errors.pointee.fatal, let root = tree.root else {
                            // libxml2 parses ahead of the reader: its own bound may refuse first.
                            let bound = min(maximumDepth, libxml2MaximumDepth)
                            return .failure(errors.pointee.tooDeep ? .tooDeep(bound: bound) : .notWellFormed)
                        }
                        return .success(root)
                    }
                    guard tree.take(reader) else {
                        return .failure(tree.tooDeep ? .tooDeep(bound: maximumDepth) : .notWellFormed)
                    }
                }
            }
        }
    }

    /// Removes a namespace prefix: `vast:Ad` → `Ad`.
    static func localName(_ qualifiedName: String) -> String {
        guard let colon = qualifiedName.lastIndex(of: ":") else { return qualifiedName }
        return String(qualifiedName[qualifiedName.index(after: colon)...])
    }
}

/// What libxml2 reported while it read: whether an error was fatal, and whether it was its depth bound.
private struct ReaderErrors {
    var fatal = false
    var tooDeep = false
}

/// The elements open while the reader walks the document; the root once it closes.
private struct TreeStack {
    let maximumDepth: Int
    var stack: [VASTXMLElement] = []
    var root: VASTXMLElement?
    var tooDeep = false

    init(maximumDepth: Int) {
        self.maximumDepth = maximumDepth
    }

    /// Takes the reader's current node; false when the document must be refused. Text, CDATA
    /// and whitespace join the open element's text; an entity reference stays unexpanded and
    /// adds nothing; comments and processing instructions are skipped.
    mutating func take(_ reader: xmlTextReaderPtr) -> Bool {
        switch xmlReaderTypes(UInt32(xmlTextReaderNodeType(reader))) {
        case XML_READER_TYPE_ELEMENT:
            guard open(reader) else { return false }
            return xmlTextReaderIsEmptyElement(reader) == 1 ? close() : true
        case XML_READER_TYPE_END_ELEMENT:
            return close()
        case XML_READER_TYPE_TEXT, XML_READER_TYPE_CDATA, XML_READER_TYPE_WHITESPACE,
            XML_READER_TYPE_SIGNIFICANT_WHITESPACE:
            if !stack.isEmpty, let value = xmlTextReaderConstValue(reader) {
                stack[stack.count - 1].text += String(cString: value)
            }
            return true
        default:
            return true
        }
    }

    private mutating func open(_ reader: xmlTextReaderPtr) -> Bool {
        guard stack.count < maximumDepth else {
            tooDeep = true
            return false
        }
        guard root == nil, let qualifiedName = xmlTextReaderConstName(reader) else { return false }
        let name = VASTXMLTreeBuilder.localName(String(cString: qualifiedName))
        var attributes: [String: String] = [:]
        while xmlTextReaderMoveToNextAttribute(reader) == 1 {
            guard xmlTextReaderIsNamespaceDecl(reader) != 1, let key = xmlTextReaderConstName(reader),
                let value = xmlTextReaderConstValue(reader)
            else { continue }
            let qualified = String(cString: key)
            let local = VASTXMLTreeBuilder.localName(qualified)
            // An unprefixed attribute wins over a prefixed one with the same local name.
            if local == qualified || attributes[local] == nil {
                attributes[local] = String(cString: value)
            }
        }
        xmlTextReaderMoveToElement(reader)
        stack.append(VASTXMLElement(name: name, attributes: attributes, children: [], text: ""))
        return true
    }

    private mutating func close() -> Bool {
        guard let element = stack.popLast() else { return false }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
        return true
    }
}
